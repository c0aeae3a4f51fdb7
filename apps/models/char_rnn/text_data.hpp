#pragma once

// Text for the char-RNN: sequences, vocabulary and batches.

#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"

namespace actorflow::apps {

/// Where Debian's `fortunes` package puts its fortune files.
inline constexpr const char* fortunes_dir = "/usr/share/games/fortunes";

/// The characters a character-level model knows: every byte value of the
/// training text, in ascending order, as ids 0, 1, ...
class char_vocabulary {
public:
  char_vocabulary() = default;

  /// The bytes of `texts`, each once, in ascending order.
  static char_vocabulary of(const std::vector<std::string>& texts);

  /// A vocabulary of exactly these distinct bytes, in this order.
  explicit char_vocabulary(std::vector<uint8_t> bytes);

  /// The id of byte `c`, or -1 if it is not in the vocabulary.
  int32_t id(unsigned char c) const noexcept {
    return ids_[c];
  }

  /// The byte of id `i` (0 <= i < size()).
  char byte(int32_t i) const noexcept {
    return static_cast<char>(bytes_[static_cast<size_t>(i)]);
  }

  int64_t size() const noexcept {
    return static_cast<int64_t>(bytes_.size());
  }

  const std::vector<uint8_t>& bytes() const noexcept {
    return bytes_;
  }

private:
  std::vector<uint8_t> bytes_;
  int32_t ids_[256];
};

/// The text of a character-level language model, one string per sequence:
/// a fortune of a fortune file (between lines of a single `%`) or a
/// paragraph of any other text file (between blank lines).
struct text_corpus {
  std::vector<std::string> train, held_out;
};

/// Reads `path` -- a text file, or every text file of a folder (symbolic
/// links and files with NUL bytes, such as fortune's .dat indexes,
/// skipped), in name order -- and puts every `held_out_every`-th sequence
/// into the held-out part. not_found when there is nothing to read;
/// invalid_argument when it has fewer than two sequences.
core::status load_text_corpus(const std::string& path, int held_out_every,
                              text_corpus* out);

/// One batch of next-character prediction: `inputs` and `targets` int32
/// [batch, steps] (the targets the inputs shifted by one, zero past each
/// sequence's end) and `lengths` int32 [batch].
struct text_batch {
  core::tensor inputs, targets, lengths;
  /// The real characters to predict: the sum of the lengths.
  int64_t characters = 0;
};

/// Cuts `texts` into windows of at most `max_len` + 1 characters (a
/// window's last character is the next one's first, so each character is
/// predicted once) and groups windows of similar length into batches of
/// `batch` (the last may be smaller): sorted by length, so a batch costs
/// about what its sequences cost. Characters outside `vocab` are an
/// invalid_argument naming the byte.
core::status make_text_batches(const std::vector<std::string>& texts,
                               const char_vocabulary& vocab, int64_t max_len,
                               int64_t batch, std::vector<text_batch>* out);

/// The perplexity on `held_out`'s characters (each sequence's from its
/// second on) of the character-frequency (unigram) model of `train`,
/// add-one smoothed over `vocab`: what a model that ignores context gets.
double unigram_perplexity(const std::vector<std::string>& train,
                          const std::vector<std::string>& held_out,
                          const char_vocabulary& vocab);

} // namespace actorflow::apps
