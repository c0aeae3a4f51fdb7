#include "tensor_bundle.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>

#include "actorflow/core/crc32c.hpp"
#include "saved_model.pb.h"
#include "tf_types.hpp"

namespace actorflow::ops {

namespace {

/// A cursor over bytes that fails, rather than reads past the end.
struct reader {
  const char* p;
  const char* end;

  bool varint(uint64_t* out) {
    uint64_t x = 0;
    for (int shift = 0; shift < 64 && p < end; shift += 7) {
      auto byte = static_cast<uint8_t>(*p++);
      x |= uint64_t{byte & 0x7Fu} << shift;
      if ((byte & 0x80u) == 0) {
        *out = x;
        return true;
      }
    }
    return false;
  }

  bool bytes(uint64_t n, std::string_view* out) {
    if (n > static_cast<uint64_t>(end - p))
      return false;
    *out = std::string_view{p, static_cast<size_t>(n)};
    p += n;
    return true;
  }
};

/// Every entry of the LevelDB table at `path` (a bundle's index), read
/// with LevelDB's own reader, every block's checksum checked.
core::status read_table(const std::string& path,
                        std::map<std::string, std::string>* out) {
  auto* env = leveldb::Env::Default();
  uint64_t size = 0;
  auto st = env->GetFileSize(path, &size);
  leveldb::RandomAccessFile* raw = nullptr;
  if (st.ok())
    st = env->NewRandomAccessFile(path, &raw);
  if (!st.ok())
    return core::not_found_error("cannot open tensor bundle file '", path,
                                 "': ", st.ToString());
  std::unique_ptr<leveldb::RandomAccessFile> file{raw};
  leveldb::Options options;
  options.paranoid_checks = true;
  leveldb::Table* opened = nullptr;
  st = leveldb::Table::Open(options, file.get(), size, &opened);
  std::unique_ptr<leveldb::Table> table{opened};
  auto fail = [&](const leveldb::Status& why) {
    return core::data_loss_error("tensor bundle index '", path,
                                 "' is not a readable table (truncated or "
                                 "corrupt?): ",
                                 why.ToString());
  };
  if (!st.ok())
    return fail(st);
  leveldb::ReadOptions read;
  read.verify_checksums = true;
  read.fill_cache = false;
  std::unique_ptr<leveldb::Iterator> it{table->NewIterator(read)};
  for (it->SeekToFirst(); it->Valid(); it->Next())
    (*out)[it->key().ToString()] = it->value().ToString();
  if (!it->status().ok())
    return fail(it->status());
  return core::status::ok();
}

std::string shard_path(const std::string& prefix, int shard, int shards) {
  char suffix[48];
  std::snprintf(suffix, sizeof(suffix), ".data-%05d-of-%05d", shard, shards);
  return prefix + suffix;
}

} // namespace

core::status tensor_bundle::open(const std::string& prefix,
                                 tensor_bundle* out) {
  auto path = prefix + ".index";
  tensor_bundle b;
  b.prefix_ = prefix;
  ACTORFLOW_RETURN_IF_ERROR(read_table(path, &b.entries_));
  auto header = b.entries_.find("");
  if (header == b.entries_.end())
    return core::data_loss_error("tensor bundle index '", path,
                                 "' has no header entry");
  tfproto::BundleHeaderProto h;
  if (!h.ParseFromString(header->second) || h.num_shards() < 1)
    return core::data_loss_error("tensor bundle index '", path,
                                 "': a malformed header entry");
  if (h.endianness() != tfproto::BundleHeaderProto::LITTLE)
    return core::unimplemented_error("tensor bundle '", prefix,
                                     "' is big-endian");
  b.num_shards_ = h.num_shards();
  b.entries_.erase(header);
  *out = std::move(b);
  return core::status::ok();
}

std::vector<std::string> tensor_bundle::keys() const {
  std::vector<std::string> result;
  for (const auto& [key, entry] : entries_)
    result.push_back(key);
  return result;
}

std::vector<std::string> tensor_bundle::data_files() const {
  std::vector<std::string> result;
  for (int shard = 0; shard < num_shards_; ++shard)
    result.push_back(shard_path(prefix_, shard, num_shards_));
  return result;
}

core::status tensor_bundle::entry(const std::string& key,
                                  tfproto::BundleEntryProto* out) const {
  auto it = entries_.find(key);
  if (it == entries_.end())
    return core::not_found_error("key '", key, "' is not in tensor bundle '",
                                 prefix_, "'");
  if (!out->ParseFromString(it->second))
    return core::data_loss_error("tensor bundle index '", prefix_,
                                 ".index': a malformed entry for key '", key,
                                 "'");
  return core::status::ok();
}

core::status tensor_bundle::dtype_of(const std::string& key,
                                     core::dtype* out) const {
  tfproto::BundleEntryProto e;
  ACTORFLOW_RETURN_IF_ERROR(entry(key, &e));
  *out = detail::from_proto(e.dtype());
  return core::status::ok();
}

core::status tensor_bundle::read(const std::string& key, core::dtype type,
                                 core::tensor* out) const {
  tfproto::BundleEntryProto e;
  ACTORFLOW_RETURN_IF_ERROR(entry(key, &e));
  auto stored = detail::from_proto(e.dtype());
  if (stored != type)
    return core::invalid_argument_error(
      "key '", key, "' of tensor bundle '", prefix_, "' holds ",
      core::to_string(stored), ", not ", core::to_string(type));
  if (!e.slices().empty())
    return core::unimplemented_error(
      "key '", key, "' of tensor bundle '", prefix_,
      "' holds a partitioned variable's slices, which actorflow does not "
      "read");
  auto malformed = [&] {
    return core::data_loss_error("tensor bundle index '", prefix_,
                                 ".index': a malformed entry for key '", key,
                                 "'");
  };
  std::vector<int64_t> dims;
  for (const auto& d : e.shape().dim())
    dims.push_back(d.size());
  core::shape shape{std::move(dims)};
  if (!shape.fully_defined() || e.shard_id() < 0 || e.shard_id() >= num_shards_
      || e.offset() < 0 || e.size() < 0
      || (type != core::dtype::string
          && static_cast<uint64_t>(e.size())
               != shape.num_elements() * core::size_of(type)))
    return malformed();
  auto shard = shard_path(prefix_, e.shard_id(), num_shards_);
  std::ifstream in{shard, std::ios::binary};
  if (!in)
    return core::not_found_error("cannot open tensor bundle file '", shard,
                                 "'");
  std::string bytes(static_cast<size_t>(e.size()), '\0');
  in.seekg(e.offset());
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!in)
    return core::data_loss_error("tensor bundle file '", shard,
                                 "' ends before key '", key,
                                 "' does (truncated?)");
  core::tensor t{type, shape};
  uint32_t crc = 0;
  if (type != core::dtype::string) {
    crc = core::crc32c(bytes.data(), bytes.size());
    std::memcpy(t.raw_mutable_data(), bytes.data(), bytes.size());
  } else {
    // Each element's length as a varint64, a checksum of the lengths, then
    // the elements' bytes. The entry's checksum covers the lengths as
    // little-endian integers (4 bytes, 8 past 4 GiB), the lengths'
    // checksum and the elements.
    reader r{bytes.data(), bytes.data() + bytes.size()};
    auto n = shape.num_elements();
    std::vector<uint64_t> lengths(static_cast<size_t>(n));
    for (auto& len : lengths) {
      if (!r.varint(&len))
        return malformed();
      char le[8];
      int width = len <= UINT32_MAX ? 4 : 8;
      for (int i = 0; i < width; ++i)
        le[i] = static_cast<char>((len >> (8 * i)) & 0xFF);
      crc = core::crc32c_extend(crc, le, static_cast<size_t>(width));
    }
    std::string_view lengths_crc;
    if (!r.bytes(4, &lengths_crc))
      return malformed();
    crc = core::crc32c_extend(crc, lengths_crc.data(), lengths_crc.size());
    auto* items = static_cast<std::string*>(t.raw_mutable_data());
    for (int64_t i = 0; i < n; ++i) {
      std::string_view item;
      if (!r.bytes(lengths[static_cast<size_t>(i)], &item))
        return malformed();
      crc = core::crc32c_extend(crc, item.data(), item.size());
      items[i].assign(item);
    }
  }
  if (core::unmask_crc32c(e.crc32c()) != crc)
    return core::data_loss_error("tensor bundle file '", shard,
                                 "': the checksum of key '", key,
                                 "' does not match (corrupt file)");
  *out = std::move(t);
  return core::status::ok();
}

} // namespace actorflow::ops
