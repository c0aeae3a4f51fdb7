// libFuzzer target: the .npy reader (`actorflow run --feed`). Whatever
// the bytes, decoding returns a status; a tensor it accepts encodes back.

#include <cstddef>
#include <cstdint>
#include <string>

#include "actorflow/interop/npy.hpp"

using namespace actorflow;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  core::tensor t;
  if (interop::decode_npy({reinterpret_cast<const char*>(data), size}, &t)
        .is_ok()) {
    std::string again;
    (void)interop::encode_npy(t, &again);
  }
  return 0;
}
