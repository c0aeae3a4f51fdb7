#include "actorflow/actors/checkpoint_manager.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "actorflow/core/logging.hpp"

namespace actorflow::actors {

namespace fs = std::filesystem;

checkpoint_manager::checkpoint_manager(session& sess, graph::saver ops,
                                       std::string dir, std::string prefix,
                                       int keep)
  : sess_(sess), ops_(std::move(ops)), dir_(std::move(dir)),
    prefix_(std::move(prefix)), keep_(std::max(keep, 1)) {
  std::error_code ec;
  fs::create_directories(dir_, ec); // save reports a directory it cannot use
}

std::string checkpoint_manager::path(int64_t step) const {
  return (fs::path{dir_} / (prefix_ + "-" + std::to_string(step))).string();
}

bool checkpoint_manager::legacy(int64_t step) const {
  std::error_code ec;
  return !fs::exists(path(step) + ".index", ec) && fs::exists(path(step), ec);
}

std::vector<int64_t> checkpoint_manager::steps() const {
  std::vector<int64_t> result;
  std::error_code ec;
  auto head = prefix_ + "-";
  for (const auto& entry : fs::directory_iterator{dir_, ec}) {
    auto name = entry.path().filename().string();
    if (name.size() > 6 && name.compare(name.size() - 6, 6, ".index") == 0)
      name.resize(name.size() - 6); // a bundle's index
    if (name.rfind(head, 0) != 0 || name.size() == head.size())
      continue;
    auto digits = name.substr(head.size());
    if (!std::all_of(digits.begin(), digits.end(),
                     [](char c) { return c >= '0' && c <= '9'; })
        || digits.size() > 18)
      continue; // data shards, temporary files and strangers
    result.push_back(std::stoll(digits));
  }
  std::sort(result.begin(), result.end());
  result.erase(std::unique(result.begin(), result.end()), result.end());
  return result;
}

void checkpoint_manager::remove(int64_t step) const {
  std::error_code ec;
  auto prefix = path(step);
  auto base = fs::path{prefix}.filename().string();
  std::vector<fs::path> files;
  if (fs::is_regular_file(prefix, ec))
    files.emplace_back(prefix); // actorflow's old single file
  for (const auto& entry : fs::directory_iterator{dir_, ec}) {
    auto name = entry.path().filename().string();
    if (name == base + ".index" || name.rfind(base + ".data-", 0) == 0)
      files.push_back(entry.path());
  }
  for (const auto& f : files) {
    fs::remove(f, ec);
    if (ec)
      core::log().warn("could not delete old checkpoint file {}: {}",
                       f.string(), ec.message());
  }
}

core::status checkpoint_manager::save(int64_t step) {
  std::vector<core::tensor> out;
  ACTORFLOW_RETURN_IF_ERROR(
    sess_.run({{ops_.filename.name(), core::tensor::scalar(path(step))}}, {},
              {ops_.save.name}, &out));
  line_.erase(std::remove(line_.begin(), line_.end(), step), line_.end());
  line_.push_back(step);
  auto first_kept = line_.size() > static_cast<size_t>(keep_)
                      ? line_.end() - keep_
                      : line_.begin();
  for (auto s : steps()) {
    std::error_code ec;
    if (std::find(first_kept, line_.end(), s) != line_.end()
        || !(fs::is_regular_file(path(s) + ".index", ec)
             || fs::is_regular_file(path(s), ec)))
      continue; // kept, or not a checkpoint: not ours to delete
    remove(s);
  }
  line_.erase(line_.begin(), first_kept);
  return core::status::ok();
}

core::status checkpoint_manager::restore(int64_t step) {
  std::vector<core::tensor> out;
  const auto& op = legacy(step) ? ops_.restore_legacy : ops_.restore;
  return sess_.run({{ops_.filename.name(), core::tensor::scalar(path(step))}},
                   {}, {op.name}, &out);
}

core::status
checkpoint_manager::restore_what_fits(int64_t step,
                                      std::vector<std::string>* skipped) {
  std::vector<core::tensor> out;
  const auto& each
    = legacy(step) ? ops_.restore_each_legacy : ops_.restore_each;
  for (const auto& [name, assign] : each) {
    auto st
      = sess_.run({{ops_.filename.name(), core::tensor::scalar(path(step))}},
                  {}, {assign.name}, &out);
    if (st.code() == core::errc::not_found
        || st.code() == core::errc::invalid_argument) {
      core::log().info("not restored: {}", st.to_string());
      skipped->push_back(name);
    } else if (!st.is_ok()) {
      return st;
    }
  }
  return core::status::ok();
}

core::status
checkpoint_manager::restore_latest(int64_t* step, fit mode,
                                   std::vector<std::string>* skipped) {
  auto all = steps();
  if (all.empty())
    return core::not_found_error("no checkpoint '", prefix_, "-<step>' in '",
                                 dir_, "'");
  std::vector<std::string> ignored;
  for (auto i = all.rbegin(); i != all.rend(); ++i) {
    auto st = mode == fit::all
                ? restore(*i)
                : restore_what_fits(*i, skipped ? skipped : &ignored);
    if (st.is_ok()) {
      *step = *i;
      line_.assign(all.begin(), i.base());
      return st;
    }
    if (st.code() != core::errc::data_loss)
      return core::failed_precondition_error(
        "checkpoint '", path(*i), "' does not fit the graph: ", st.message());
    core::log().warn("skipping damaged checkpoint: {}", st.to_string());
  }
  return core::data_loss_error("none of the ", all.size(), " checkpoints '",
                               prefix_, "-<step>' in '", dir_, "' loads");
}

} // namespace actorflow::actors
