#include "tensor_bundle.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "actorflow/core/crc32c.hpp"
#include "actorflow/core/file.hpp"
#include "saved_model.pb.h"
#include "tf_types.hpp"

namespace actorflow::ops {

namespace {

constexpr uint64_t table_magic = 0xdb4775248b80fb57ull;
constexpr size_t footer_size = 48;
/// A block's trailer: its compression type and masked CRC-32C.
constexpr size_t trailer_size = 5;

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

uint32_t fixed32(const char* p) {
  uint32_t x = 0;
  for (int i = 3; i >= 0; --i)
    x = (x << 8) | static_cast<uint8_t>(p[i]);
  return x;
}

struct block_handle {
  uint64_t offset = 0;
  uint64_t size = 0;
};

bool read_handle(reader& r, block_handle* out) {
  return r.varint(&out->offset) && r.varint(&out->size);
}

/// The contents of the block at `h` in `file`, checked.
core::status block_at(const std::string& file, const std::string& path,
                      const block_handle& h, std::string_view* out) {
  auto fail = [&](const char* what) {
    return core::data_loss_error("tensor bundle index '", path, "': ", what);
  };
  if (h.offset > file.size() || h.size > file.size() - h.offset
      || trailer_size > file.size() - h.offset - h.size)
    return fail("a block lies past the end of the file (truncated?)");
  const char* p = file.data() + h.offset;
  if (p[h.size] != 0)
    return core::unimplemented_error(
      "tensor bundle index '", path,
      "' has compressed blocks; actorflow reads uncompressed ones (what "
      "TensorFlow writes)");
  auto crc = core::crc32c_extend(core::crc32c(p, h.size), p + h.size, 1);
  if (core::unmask_crc32c(fixed32(p + h.size + 1)) != crc)
    return fail("a block's checksum does not match (corrupt file)");
  *out = std::string_view{p, static_cast<size_t>(h.size)};
  return core::status::ok();
}

/// Calls `f(key, value)` for each entry of a block, in order.
template <class F>
core::status for_each_entry(std::string_view block, const std::string& path,
                            F f) {
  auto fail = [&] {
    return core::data_loss_error("tensor bundle index '", path,
                                 "': a malformed block");
  };
  if (block.size() < 4)
    return fail();
  uint64_t restarts = fixed32(block.data() + block.size() - 4);
  if (restarts > (block.size() - 4) / 4)
    return fail();
  reader r{block.data(), block.data() + block.size() - 4 - 4 * restarts};
  std::string key;
  while (r.p < r.end) {
    uint64_t shared = 0, unshared = 0, value_size = 0;
    std::string_view delta, value;
    if (!r.varint(&shared) || !r.varint(&unshared) || !r.varint(&value_size)
        || shared > key.size() || !r.bytes(unshared, &delta)
        || !r.bytes(value_size, &value))
      return fail();
    key.resize(shared);
    key.append(delta);
    ACTORFLOW_RETURN_IF_ERROR(f(key, value));
  }
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
  std::string file;
  ACTORFLOW_RETURN_IF_ERROR(core::read_file(path, &file, "tensor bundle file"));
  if (file.size() < footer_size)
    return core::data_loss_error("tensor bundle index '", path,
                                 "' is too short for a table (truncated?)");
  const char* footer = file.data() + file.size() - footer_size;
  uint64_t magic = fixed32(footer + 40) | uint64_t{fixed32(footer + 44)} << 32;
  if (magic != table_magic)
    return core::data_loss_error("tensor bundle index '", path,
                                 "' does not end in a table's footer");
  reader r{footer, footer + 40};
  block_handle meta, index;
  if (!read_handle(r, &meta) || !read_handle(r, &index))
    return core::data_loss_error("tensor bundle index '", path,
                                 "': a malformed footer");
  tensor_bundle b;
  b.prefix_ = prefix;
  std::string_view index_block;
  ACTORFLOW_RETURN_IF_ERROR(block_at(file, path, index, &index_block));
  ACTORFLOW_RETURN_IF_ERROR(for_each_entry(
    index_block, path, [&](const std::string&, std::string_view handle) {
      reader hr{handle.data(), handle.data() + handle.size()};
      block_handle h;
      std::string_view data;
      if (!read_handle(hr, &h))
        return core::data_loss_error("tensor bundle index '", path,
                                     "': a malformed block handle");
      ACTORFLOW_RETURN_IF_ERROR(block_at(file, path, h, &data));
      return for_each_entry(data, path,
                            [&](const std::string& key, std::string_view v) {
                              b.entries_[key] = std::string{v};
                              return core::status::ok();
                            });
    }));
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
