#include "checkpoint_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string_view>
#include <system_error>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <fcntl.h>
#include <kj/exception.h>
#include <unistd.h>
#include <zlib.h>

#include "actorflow/core/file.hpp"
#include "checkpoint.capnp.h"
#include "tensor_codec.hpp"

namespace actorflow::ops {

namespace {

// Format 2: each tensor in the form of tensor.capnp. Format 1 (before
// 2026-11-23) gave checkpoints a tensor form of their own.
constexpr char magic[8] = {'A', 'F', 'C', 'K', 'P', 'T', '2', '\n'};
constexpr char magic_v1[8] = {'A', 'F', 'C', 'K', 'P', 'T', '1', '\n'};
constexpr size_t header_bytes = 8 + 8 + 4; // magic, body length, CRC-32

void put_le(unsigned char* p, uint64_t x, int bytes) {
  for (int i = 0; i < bytes; ++i)
    p[i] = static_cast<unsigned char>(x >> (8 * i));
}

uint64_t get_le(const unsigned char* p, int bytes) {
  uint64_t x = 0;
  for (int i = 0; i < bytes; ++i)
    x |= uint64_t{p[i]} << (8 * i);
  return x;
}

uint32_t crc_of(const unsigned char* p, size_t n) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (n > 0) {
    auto chunk = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    crc = crc32(crc, p, chunk);
    p += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

/// Writes all of `data` to `fd`.
bool write_all(int fd, const unsigned char* data, size_t n) {
  while (n > 0) {
    auto w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

/// The directory part of `path` ("." if none).
std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

std::string checkpoint_header(const unsigned char* body, size_t size) {
  unsigned char header[header_bytes];
  std::memcpy(header, magic, 8);
  put_le(header + 8, size, 8);
  put_le(header + 16, crc_of(body, size), 4);
  return std::string{reinterpret_cast<const char*>(header), header_bytes};
}

core::status write_checkpoint(const std::string& path,
                              const std::vector<std::string>& names,
                              const std::vector<core::tensor>& tensors) {
  if (names.size() != tensors.size())
    return core::invalid_argument_error("checkpoint '", path,
                                        "': ", names.size(), " names for ",
                                        tensors.size(), " tensors");
  capnp::MallocMessageBuilder message;
  auto root = message.initRoot<schema::Checkpoint>();
  auto list = root.initTensors(static_cast<unsigned>(tensors.size()));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    if (!t.valid())
      return core::failed_precondition_error(
        "checkpoint '", path, "': tensor '", names[i], "' has no value");
    if (t.dtype() == core::dtype::string || t.dtype() == core::dtype::variant)
      return core::unimplemented_error(
        "checkpoint '", path, "': tensor '", names[i], "' holds ",
        core::to_string(t.dtype()), "s, which are not saved");
    auto e = list[static_cast<unsigned>(i)];
    e.setName(names[i]);
    // The bytes are referenced, not copied: the tensors outlive `message`.
    auto orphanage = message.getOrphanage();
    detail::encode_tensor(t, e.initTensor(), &orphanage);
  }
  auto words = capnp::messageToFlatArray(message);
  auto body = words.asBytes();
  auto header = checkpoint_header(body.begin(), body.size());
  // A name of its own beside the target, so that the rename is atomic and
  // two writers do not share a temporary file.
  std::random_device rd;
  auto tmp = path + ".tmp" + std::to_string(rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return core::not_found_error("cannot write checkpoint '", path,
                                 "': ", std::strerror(errno));
  bool ok = write_all(fd, reinterpret_cast<const unsigned char*>(header.data()),
                      header.size())
            && write_all(fd, body.begin(), body.size()) && ::fsync(fd) == 0;
  auto err = errno;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    err = ok ? errno : err;
    ::unlink(tmp.c_str());
    return core::data_loss_error("cannot write checkpoint '", path,
                                 "': ", std::strerror(err));
  }
  // The rename itself reaches the disk with the directory.
  int dir = ::open(dir_of(path).c_str(), O_RDONLY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return core::status::ok();
}

core::status read_checkpoint(const std::string& path,
                             std::map<std::string, core::tensor>* out) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return core::data_loss_error("checkpoint '", path,
                                 "' is a directory, not a file");
  std::string bytes;
  ACTORFLOW_RETURN_IF_ERROR(core::read_file(path, &bytes, "checkpoint"));
  return decode_checkpoint(bytes, path, out);
}

core::status decode_checkpoint(std::string_view text, const std::string& path,
                               std::map<std::string, core::tensor>* out) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  if (text.size() >= header_bytes && std::memcmp(bytes, magic_v1, 8) == 0)
    return core::failed_precondition_error(
      "checkpoint '", path,
      "' has format 1, which this build no longer reads: restore it with "
      "the build that wrote it and save it again");
  if (text.size() < header_bytes || std::memcmp(bytes, magic, 8) != 0)
    return core::data_loss_error("'", path,
                                 "' is not a checkpoint (bad header)");
  auto length = get_le(bytes + 8, 8);
  if (length != text.size() - header_bytes || length % 8 != 0)
    return core::data_loss_error("checkpoint '", path,
                                 "' is truncated: ", text.size() - header_bytes,
                                 " bytes of body, the header says ", length);
  const auto* body = bytes + header_bytes;
  if (crc_of(body, length) != get_le(bytes + 16, 4))
    return core::data_loss_error("checkpoint '", path,
                                 "' is corrupt: checksum mismatch");
  out->clear();
  try {
    // The body is word-aligned data after a 20-byte header: copy it into
    // words of its own.
    kj::Array<capnp::word> words
      = kj::heapArray<capnp::word>(length / sizeof(capnp::word));
    std::memcpy(words.begin(), body, length);
    capnp::ReaderOptions options;
    options.traversalLimitInWords = length / sizeof(capnp::word) + 64;
    capnp::FlatArrayMessageReader reader{words, options};
    auto root = reader.getRoot<schema::Checkpoint>();
    for (auto e : root.getTensors()) {
      std::string name = e.getName();
      core::tensor t;
      auto st = detail::decode_tensor(e.getTensor(), &t);
      if (!st.is_ok())
        return core::data_loss_error("checkpoint '", path, "': tensor '", name,
                                     "': ", st.message());
      if (t.dtype() == core::dtype::string)
        return core::data_loss_error("checkpoint '", path, "': tensor '", name,
                                     "' holds strings, which are not saved");
      (*out)[name] = std::move(t);
    }
  } catch (const kj::Exception& e) {
    return core::data_loss_error("checkpoint '", path,
                                 "' is corrupt: ", e.getDescription().cStr());
  }
  return core::status::ok();
}

} // namespace actorflow::ops
