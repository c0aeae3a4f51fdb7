// libFuzzer target: the checkpoint reader. The input is taken as a whole
// file when its first byte is odd (a file's first byte, 'A', is); else the
// rest is the body and a valid header (checkpoint_header) is put before
// it, so that the fuzzer reaches the Cap'n Proto body behind the checksum.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

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
  auto file
    = ops::checkpoint_header(
        reinterpret_cast<const unsigned char*>(body.data()), body.size())
      + body;
  (void)ops::decode_checkpoint(file, "fuzz", &out);
  return 0;
}
