// libFuzzer target: the decoders of every message that crosses processes,
// fed as CAF's BASP feeds them (a binary_deserializer over the bytes): a
// value (Send to Recv), a partition set (registration), a run-step message
// and a step report; and the bulk path's header. The first byte picks the
// decoder. Whatever the rest: an error (CAF's, or the message's
// `wire_error`, which has its receiver disconnect the sender), or a
// message that encodes again; never a crash.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include "actorflow/actors/protocol.hpp"
#include "transport/wire_codec.hpp"

using namespace actorflow;

namespace {

/// Decodes a `T` from `bytes`; if that works, encodes it again.
template <class T>
void round_trip(const char* bytes, size_t size) {
  caf::binary_deserializer source{nullptr, bytes, size};
  T x;
  if (inspect(source, x) || !x.wire_error.is_ok())
    return;
  std::vector<char> again;
  caf::binary_serializer sink{nullptr, again};
  (void)inspect(sink, x);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  auto kind = data[0] % 5;
  const auto* bytes = reinterpret_cast<const char*>(data + 1);
  --size;
  switch (kind) {
    case 0: round_trip<actors::value_msg>(bytes, size); break;
    case 1: round_trip<actors::partition_set>(bytes, size); break;
    case 2: round_trip<actors::run_step_msg>(bytes, size); break;
    case 3: round_trip<actors::step_report>(bytes, size); break;
    default: {
      // A bulk header: 8 bytes of payload size, then the words.
      if (size < 8)
        return 0;
      uint64_t payload = 0;
      std::memcpy(&payload, bytes, 8);
      std::vector<capnp::word> words((size - 8) / sizeof(capnp::word));
      if (!words.empty())
        std::memcpy(words.data(), bytes + 8,
                    words.size() * sizeof(capnp::word));
      uint64_t key = 0;
      actors::value_msg m;
      (void)actors::detail::decode_bulk_header(
        kj::ArrayPtr<const capnp::word>(words.data(), words.size()),
        payload % (uint64_t{1} << 32), &key, &m);
      break;
    }
  }
  return 0;
}
