#include "tensor_bundle_writer.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <utility>

#include <leveldb/env.h>
#include <leveldb/options.h>
#include <leveldb/table_builder.h>

#include "actorflow/core/crc32c.hpp"
#include "saved_model.pb.h"
#include "tensor_bundle.hpp"
#include "tf_types.hpp"

namespace actorflow::ops {

namespace {

namespace fs = std::filesystem;

/// A table's data blocks are cut at about this many bytes (TensorFlow's
/// table::Options::block_size).
constexpr size_t block_size = 256 * 1024;

void put_varint(std::string& out, uint64_t x) {
  while (x >= 0x80) {
    out.push_back(static_cast<char>((x & 0x7F) | 0x80));
    x >>= 7;
  }
  out.push_back(static_cast<char>(x));
}

void put_fixed32(std::string& out, uint32_t x) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((x >> (8 * i)) & 0xFF));
}

/// Writes `entries` (in key order) as a LevelDB table at `path` with
/// LevelDB's table builder: uncompressed blocks of TensorFlow's size, so
/// the file is the bytes TensorFlow's BundleWriter writes.
core::status
write_table(const std::string& path,
            const std::vector<std::pair<std::string, std::string>>& entries) {
  leveldb::WritableFile* raw = nullptr;
  auto st = leveldb::Env::Default()->NewWritableFile(path, &raw);
  std::unique_ptr<leveldb::WritableFile> file{raw};
  if (st.ok()) {
    leveldb::Options options;
    options.compression = leveldb::kNoCompression;
    options.block_size = block_size;
    leveldb::TableBuilder table{options, file.get()};
    for (const auto& [key, value] : entries)
      table.Add(key, value);
    st = table.Finish();
  }
  if (st.ok())
    st = file->Sync();
  if (st.ok())
    st = file->Close();
  if (!st.ok())
    return core::internal_error("cannot write tensor bundle file '", path,
                                "': ", st.ToString());
  return core::status::ok();
}

/// `t`'s bytes as a bundle stores them, and their CRC-32C: the raw
/// elements, or for strings each length as a varint, a masked checksum
/// of the lengths, then the strings (the checksum covers the lengths as
/// little-endian integers, that checksum and the strings).
std::string encode(const core::tensor& t, uint32_t* crc) {
  if (t.dtype() != core::dtype::string) {
    std::string out(static_cast<const char*>(t.raw_data()), t.bytes());
    *crc = core::crc32c(out.data(), out.size());
    return out;
  }
  const auto* items = t.data<std::string>();
  auto n = t.num_elements();
  std::string out;
  uint32_t lengths_crc = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t len = items[i].size();
    put_varint(out, len);
    char le[8];
    int width = len <= UINT32_MAX ? 4 : 8;
    for (int b = 0; b < width; ++b)
      le[b] = static_cast<char>((len >> (8 * b)) & 0xFF);
    lengths_crc
      = core::crc32c_extend(lengths_crc, le, static_cast<size_t>(width));
  }
  std::string masked;
  put_fixed32(masked, core::mask_crc32c(lengths_crc));
  out += masked;
  uint32_t c = core::crc32c_extend(lengths_crc, masked.data(), masked.size());
  for (int64_t i = 0; i < n; ++i) {
    out += items[i];
    c = core::crc32c_extend(c, items[i].data(), items[i].size());
  }
  *crc = c;
  return out;
}

core::status write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out{path, std::ios::binary | std::ios::trunc};
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out)
    return core::internal_error("cannot write tensor bundle file '", path, "'");
  return core::status::ok();
}

} // namespace

core::status tensor_bundle_writer::add(const std::string& key,
                                       const core::tensor& value) {
  if (key.empty())
    return core::invalid_argument_error("a tensor bundle key is not empty");
  if (value.dtype() == core::dtype::variant)
    return core::unimplemented_error("key '", key,
                                     "': a variant tensor cannot be saved");
  if (!tensors_.emplace(key, value).second)
    return core::invalid_argument_error("key '", key,
                                        "' is saved twice in one bundle");
  return core::status::ok();
}

core::status tensor_bundle_writer::write(const std::string& prefix) const {
  std::error_code ec;
  auto dir = fs::path{prefix}.parent_path();
  if (!dir.empty())
    fs::create_directories(dir, ec);
  if (ec)
    return core::internal_error("cannot create directory '", dir.string(),
                                "': ", ec.message());
  std::string data;
  std::vector<std::pair<std::string, std::string>> index;
  tfproto::BundleHeaderProto header;
  header.set_num_shards(1);
  header.set_endianness(tfproto::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(1);
  index.emplace_back("", header.SerializeAsString());
  for (const auto& [key, t] : tensors_) {
    uint32_t crc = 0;
    auto bytes = encode(t, &crc);
    tfproto::BundleEntryProto e;
    e.set_dtype(detail::to_proto(t.dtype()));
    // A scalar's shape is there too, empty (as TensorFlow writes it).
    auto* shape = e.mutable_shape();
    for (auto d : t.shape().dims())
      shape->add_dim()->set_size(d);
    e.set_shard_id(0);
    e.set_offset(static_cast<int64_t>(data.size()));
    e.set_size(static_cast<int64_t>(bytes.size()));
    e.set_crc32c(core::mask_crc32c(crc));
    data += bytes;
    index.emplace_back(key, e.SerializeAsString());
  }
  ACTORFLOW_RETURN_IF_ERROR(write_file(prefix + ".data-00000-of-00001", data));
  return write_table(prefix + ".index", index);
}

core::status merge_tensor_bundles(const std::vector<std::string>& prefixes,
                                  const std::string& destination,
                                  bool delete_old_dirs) {
  tensor_bundle_writer merged;
  std::vector<std::string> files;
  for (const auto& prefix : prefixes) {
    tensor_bundle b;
    ACTORFLOW_RETURN_IF_ERROR(tensor_bundle::open(prefix, &b));
    for (const auto& key : b.keys()) {
      core::dtype type = core::dtype::invalid;
      core::tensor t;
      ACTORFLOW_RETURN_IF_ERROR(b.dtype_of(key, &type));
      ACTORFLOW_RETURN_IF_ERROR(b.read(key, type, &t));
      ACTORFLOW_RETURN_IF_ERROR(merged.add(key, t));
    }
    files.push_back(prefix + ".index");
    for (auto& f : b.data_files())
      files.push_back(std::move(f));
  }
  ACTORFLOW_RETURN_IF_ERROR(merged.write(destination));
  if (!delete_old_dirs)
    return core::status::ok();
  std::error_code ec;
  auto written = [&](const std::string& f) {
    auto p = fs::weakly_canonical(f, ec);
    return p == fs::weakly_canonical(destination + ".index", ec)
           || p
                == fs::weakly_canonical(destination + ".data-00000-of-00001",
                                        ec);
  };
  for (const auto& f : files) {
    if (written(f))
      continue;
    fs::remove(f, ec);
    auto dir = fs::path{f}.parent_path();
    if (!dir.empty() && fs::is_empty(dir, ec))
      fs::remove(dir, ec);
  }
  return core::status::ok();
}

} // namespace actorflow::ops
