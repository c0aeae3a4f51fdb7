// libFuzzer target: the checkpoint reader. The input is taken as a whole
// file when its first byte is odd (a file's first byte, 'A', is); else the
// rest is the body and a
// valid header (magic, length, CRC-32) is put before it, so that the
// fuzzer reaches the Cap'n Proto body behind the checksum.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>

#include <zlib.h>

#include "checkpoint_file.hpp"

using namespace actorflow;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::map<std::string, core::tensor> out;
  if (size == 0 || data[0] % 2 == 1) {
    (void)ops::decode_checkpoint({reinterpret_cast<const char*>(data), size},
                                 "fuzz", &out);
    return 0;
  }
  std::string body{reinterpret_cast<const char*>(data) + 1, size - 1};
  body.resize((body.size() + 7) / 8 * 8, '\0');
  std::string file{"AFCKPT1\n"};
  auto put = [&](uint64_t x, int bytes) {
    for (int i = 0; i < bytes; ++i)
      file.push_back(static_cast<char>(x >> (8 * i)));
  };
  put(body.size(), 8);
  put(crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(body.data()),
            static_cast<uInt>(body.size())),
      4);
  file += body;
  (void)ops::decode_checkpoint(file, "fuzz", &out);
  return 0;
}
