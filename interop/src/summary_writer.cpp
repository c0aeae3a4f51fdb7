#include "actorflow/interop/summary_writer.hpp"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "actorflow/core/crc32c.hpp"

#include "actorflow/interop/tensorflow/graph_def.hpp"
#include "summary.pb.h"

namespace actorflow::interop {

namespace {

/// TFRecord's masked CRC-32C of `n` bytes at `data`.
uint32_t masked_crc32c(const void* data, size_t n) {
  return core::mask_crc32c(core::crc32c(data, n));
}

void put_le(std::string* out, uint64_t x, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out->push_back(static_cast<char>((x >> (8 * i)) & 0xFF));
}

double wall_time() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

} // namespace

summary_writer::summary_writer(std::string path, std::ofstream file)
  : path_(std::move(path)), file_(std::move(file)) {
  // nop
}

core::status summary_writer::open(const std::string& logdir,
                                  std::unique_ptr<summary_writer>* out) {
  std::error_code ec;
  std::filesystem::create_directories(logdir, ec);
  if (ec)
    return core::not_found_error("cannot create log directory '", logdir,
                                 "': ", ec.message());
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  auto seconds = static_cast<long long>(wall_time());
  auto path = (std::filesystem::path{logdir}
               / ("events.out.tfevents." + std::to_string(seconds) + "." + host
                  + "." + std::to_string(getpid())))
                .string();
  std::ofstream file{path, std::ios::binary | std::ios::trunc};
  if (!file)
    return core::not_found_error("cannot create event file '", path,
                                 "': ", std::strerror(errno));
  std::unique_ptr<summary_writer> w{
    new summary_writer(std::move(path), std::move(file))};
  tfproto::Event version;
  version.set_wall_time(wall_time());
  version.set_file_version("brain.Event:2");
  ACTORFLOW_RETURN_IF_ERROR(w->write_record(version.SerializeAsString()));
  ACTORFLOW_RETURN_IF_ERROR(w->flush());
  *out = std::move(w);
  return core::status::ok();
}

core::status summary_writer::add_summary(const std::string& serialized,
                                         int64_t step) {
  tfproto::Event ev;
  ev.set_wall_time(wall_time());
  ev.set_step(step);
  if (!ev.mutable_summary()->ParseFromString(serialized))
    return core::invalid_argument_error(
      "not a serialized Summary (the output of a summary op)");
  return write_record(ev.SerializeAsString());
}

core::status summary_writer::add_scalar(const std::string& tag, double value,
                                        int64_t step) {
  tfproto::Event ev;
  ev.set_wall_time(wall_time());
  ev.set_step(step);
  auto* v = ev.mutable_summary()->add_value();
  v->set_tag(tag);
  v->set_simple_value(static_cast<float>(value));
  return write_record(ev.SerializeAsString());
}

core::status summary_writer::add_graph(const graph::graph& g) {
  tfproto::Event ev;
  ev.set_wall_time(wall_time());
  ACTORFLOW_RETURN_IF_ERROR(
    tensorflow::to_graph_def(g, ev.mutable_graph_def()));
  return write_record(ev.SerializeAsString());
}

core::status summary_writer::flush() {
  file_.flush();
  if (!file_)
    return core::data_loss_error("writing event file '", path_, "' failed");
  return core::status::ok();
}

core::status summary_writer::write_record(const std::string& data) {
  // length (little-endian uint64), its masked CRC, the data, its masked CRC
  std::string header;
  put_le(&header, data.size(), 8);
  put_le(&header, masked_crc32c(header.data(), 8), 4);
  std::string footer;
  put_le(&footer, masked_crc32c(data.data(), data.size()), 4);
  file_ << header << data << footer;
  if (!file_)
    return core::data_loss_error("writing event file '", path_, "' failed");
  return core::status::ok();
}

} // namespace actorflow::interop
