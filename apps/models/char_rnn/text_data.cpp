// Text for the char-RNN: sequences from files, the vocabulary, padded
// batches of similar lengths.

#include "models/char_rnn/text_data.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace actorflow::apps {

namespace fs = std::filesystem;
using core::errc;
using core::status;

char_vocabulary::char_vocabulary(std::vector<uint8_t> bytes)
  : bytes_(std::move(bytes)) {
  std::fill(std::begin(ids_), std::end(ids_), -1);
  for (size_t i = 0; i < bytes_.size(); ++i)
    ids_[bytes_[i]] = static_cast<int32_t>(i);
}

char_vocabulary char_vocabulary::of(const std::vector<std::string>& texts) {
  bool seen[256] = {};
  for (const auto& t : texts)
    for (unsigned char c : t)
      seen[c] = true;
  std::vector<uint8_t> bytes;
  for (int c = 0; c < 256; ++c)
    if (seen[c])
      bytes.push_back(static_cast<uint8_t>(c));
  return char_vocabulary{std::move(bytes)};
}

namespace {

/// Drops the newlines at both ends of `s`.
std::string trimmed(const std::string& s) {
  auto first = s.find_first_not_of('\n');
  if (first == std::string::npos)
    return {};
  return s.substr(first, s.find_last_not_of('\n') - first + 1);
}

/// Splits `text` into sequences: at lines that are a single `%` when it has
/// any (a fortune file), else at blank lines.
void split_sequences(const std::string& text, std::vector<std::string>* out) {
  bool fortunes
    = text.rfind("%\n", 0) == 0 || text.find("\n%\n") != std::string::npos;
  std::istringstream lines{text};
  std::string line, current;
  auto flush = [&] {
    auto t = trimmed(current);
    if (!t.empty())
      out->push_back(std::move(t));
    current.clear();
  };
  while (std::getline(lines, line)) {
    if (fortunes ? line == "%" : line.find_first_not_of(" \t\r") == line.npos)
      flush();
    else
      current += line + '\n';
  }
  flush();
}

status read_file(const fs::path& p, std::string* text) {
  std::ifstream in{p, std::ios::binary};
  if (!in)
    return status{errc::not_found, "cannot read " + p.string()};
  text->assign(std::istreambuf_iterator<char>{in},
               std::istreambuf_iterator<char>{});
  return status::ok();
}

} // namespace

status load_text_corpus(const std::string& path, int held_out_every,
                        text_corpus* out) {
  std::error_code ec;
  std::vector<fs::path> files;
  if (fs::is_directory(path, ec)) {
    for (const auto& entry : fs::directory_iterator{path, ec})
      if (entry.is_regular_file(ec) && !entry.is_symlink(ec))
        files.push_back(entry.path());
    std::sort(files.begin(), files.end());
  } else if (fs::is_regular_file(path, ec)) {
    files.emplace_back(path);
  } else {
    return status{errc::not_found, "no text file or folder at '" + path + "'"};
  }
  std::vector<std::string> sequences;
  for (const auto& f : files) {
    std::string text;
    ACTORFLOW_RETURN_IF_ERROR(read_file(f, &text));
    if (text.find('\0') == std::string::npos) // not binary (a .dat index)
      split_sequences(text, &sequences);
  }
  if (sequences.empty())
    return status{errc::not_found, "no text in '" + path + "'"};
  if (sequences.size() < 2)
    return status{errc::invalid_argument,
                  "'" + path
                    + "' has one sequence; training and held-out "
                      "text need two at least (fortunes between % lines, "
                      "paragraphs between blank lines)"};
  out->train.clear();
  out->held_out.clear();
  auto every = static_cast<size_t>(std::max(held_out_every, 2));
  for (size_t i = 0; i < sequences.size(); ++i)
    (i % every == every - 1 ? out->held_out : out->train)
      .push_back(std::move(sequences[i]));
  return status::ok();
}

status make_text_batches(const std::vector<std::string>& texts,
                         const char_vocabulary& vocab, int64_t max_len,
                         int64_t batch, std::vector<text_batch>* out) {
  // Windows of max_len + 1 characters that overlap by one.
  std::vector<std::vector<int32_t>> windows;
  for (const auto& t : texts) {
    std::vector<int32_t> ids;
    ids.reserve(t.size());
    for (unsigned char c : t) {
      auto id = vocab.id(c);
      if (id < 0)
        return status{errc::invalid_argument,
                      "byte " + std::to_string(static_cast<int>(c))
                        + " is not in the vocabulary"};
      ids.push_back(id);
    }
    for (size_t first = 0; first + 1 < ids.size();
         first += static_cast<size_t>(max_len)) {
      auto last
        = std::min(ids.size(), first + static_cast<size_t>(max_len) + 1);
      windows.emplace_back(ids.begin() + static_cast<std::ptrdiff_t>(first),
                           ids.begin() + static_cast<std::ptrdiff_t>(last));
    }
  }
  std::stable_sort(
    windows.begin(), windows.end(),
    [](const auto& a, const auto& b) { return a.size() < b.size(); });
  out->clear();
  for (size_t first = 0; first < windows.size();
       first += static_cast<size_t>(batch)) {
    auto n = std::min(windows.size() - first, static_cast<size_t>(batch));
    size_t steps = 0;
    for (size_t i = 0; i < n; ++i)
      steps = std::max(steps, windows[first + i].size() - 1);
    std::vector<int32_t> xs(n * steps, 0), ys(n * steps, 0), lens(n);
    text_batch b;
    for (size_t i = 0; i < n; ++i) {
      const auto& w = windows[first + i];
      lens[i] = static_cast<int32_t>(w.size() - 1);
      b.characters += lens[i];
      std::copy(w.begin(), w.end() - 1, xs.begin() + i * steps);
      std::copy(w.begin() + 1, w.end(), ys.begin() + i * steps);
    }
    auto rows = static_cast<int64_t>(n), cols = static_cast<int64_t>(steps);
    b.inputs = core::tensor::from_vector<int32_t>({rows, cols}, xs);
    b.targets = core::tensor::from_vector<int32_t>({rows, cols}, ys);
    b.lengths = core::tensor::from_vector<int32_t>({rows}, lens);
    out->push_back(std::move(b));
  }
  return status::ok();
}

double unigram_perplexity(const std::vector<std::string>& train,
                          const std::vector<std::string>& held_out,
                          const char_vocabulary& vocab) {
  std::vector<double> counts(static_cast<size_t>(vocab.size()), 1.0);
  double total = static_cast<double>(vocab.size());
  for (const auto& t : train)
    for (size_t i = 1; i < t.size(); ++i) {
      auto id = vocab.id(static_cast<unsigned char>(t[i]));
      if (id >= 0) {
        counts[static_cast<size_t>(id)] += 1;
        total += 1;
      }
    }
  double nll = 0;
  int64_t n = 0;
  for (const auto& t : held_out)
    for (size_t i = 1; i < t.size(); ++i) {
      auto id = vocab.id(static_cast<unsigned char>(t[i]));
      nll
        -= std::log((id >= 0 ? counts[static_cast<size_t>(id)] : 1.0) / total);
      ++n;
    }
  return n > 0 ? std::exp(nll / static_cast<double>(n)) : 0.0;
}

} // namespace actorflow::apps
