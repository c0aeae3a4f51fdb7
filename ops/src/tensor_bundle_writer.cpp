#include "tensor_bundle_writer.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "actorflow/core/crc32c.hpp"
#include "saved_model.pb.h"
#include "tensor_bundle.hpp"
#include "tf_types.hpp"

namespace actorflow::ops {

namespace {

namespace fs = std::filesystem;

constexpr uint64_t table_magic = 0xdb4775248b80fb57ull;
/// Entries between a block's restart points (LevelDB's and TensorFlow's).
constexpr int restart_interval = 16;
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

/// One block of a table: entries with their keys' shared prefixes left
/// out, full keys at every restart point, the restart points' offsets.
class block_builder {
public:
  void add(const std::string& key, const std::string& value) {
    size_t shared = 0;
    if (count_ % restart_interval == 0) {
      restarts_.push_back(static_cast<uint32_t>(data_.size()));
    } else {
      while (shared < key.size() && shared < last_.size()
             && key[shared] == last_[shared])
        ++shared;
    }
    put_varint(data_, shared);
    put_varint(data_, key.size() - shared);
    put_varint(data_, value.size());
    data_.append(key, shared, std::string::npos);
    data_.append(value);
    last_ = key;
    ++count_;
  }

  bool empty() const noexcept {
    return count_ == 0;
  }

  size_t size() const noexcept {
    return data_.size();
  }

  /// The block's bytes; the builder starts over.
  std::string finish() {
    if (restarts_.empty())
      restarts_.push_back(0);
    auto out = std::move(data_);
    for (auto r : restarts_)
      put_fixed32(out, r);
    put_fixed32(out, static_cast<uint32_t>(restarts_.size()));
    *this = block_builder{};
    return out;
  }

private:
  std::string data_;
  std::string last_;
  std::vector<uint32_t> restarts_;
  int count_ = 0;
};

/// A table: data blocks, an empty metaindex, the index of the data
/// blocks (each under its last key) and the footer.
class table_builder {
public:
  void add(const std::string& key, const std::string& value) {
    data_.add(key, value);
    last_key_ = key;
    if (data_.size() >= block_size)
      flush();
  }

  std::string finish() {
    flush();
    block_builder meta;
    auto meta_handle = put_block(meta.finish());
    auto index_handle = put_block(index_.finish());
    std::string footer = meta_handle + index_handle;
    footer.resize(40, '\0');
    put_fixed32(footer, static_cast<uint32_t>(table_magic));
    put_fixed32(footer, static_cast<uint32_t>(table_magic >> 32));
    return std::move(file_) + footer;
  }

private:
  void flush() {
    if (data_.empty())
      return;
    index_.add(last_key_, put_block(data_.finish()));
  }

  /// Appends `block` and its trailer (no compression, masked CRC-32C);
  /// returns its handle.
  std::string put_block(const std::string& block) {
    std::string handle;
    put_varint(handle, file_.size());
    put_varint(handle, block.size());
    file_ += block;
    const char type = 0;
    auto crc
      = core::crc32c_extend(core::crc32c(block.data(), block.size()), &type, 1);
    file_.push_back(type);
    put_fixed32(file_, core::mask_crc32c(crc));
    return handle;
  }

  block_builder data_;
  block_builder index_;
  std::string last_key_;
  std::string file_;
};

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
  table_builder index;
  tfproto::BundleHeaderProto header;
  header.set_num_shards(1);
  header.set_endianness(tfproto::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(1);
  index.add("", header.SerializeAsString());
  for (const auto& [key, t] : tensors_) {
    uint32_t crc = 0;
    auto bytes = encode(t, &crc);
    tfproto::BundleEntryProto e;
    e.set_dtype(detail::to_proto(t.dtype()));
    for (auto d : t.shape().dims())
      e.mutable_shape()->add_dim()->set_size(d);
    e.set_shard_id(0);
    e.set_offset(static_cast<int64_t>(data.size()));
    e.set_size(static_cast<int64_t>(bytes.size()));
    e.set_crc32c(core::mask_crc32c(crc));
    data += bytes;
    index.add(key, e.SerializeAsString());
  }
  ACTORFLOW_RETURN_IF_ERROR(write_file(prefix + ".data-00000-of-00001", data));
  return write_file(prefix + ".index", index.finish());
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
