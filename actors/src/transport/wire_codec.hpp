#pragma once

// The bulk path's headers (net/schema/wire.capnp, BulkValue): a value
// message without its tensor's bytes, which travel raw after it. The CAF
// encodings of the messages are `inspect` overloads in protocol.hpp.

#include <cstdint>

#include <capnp/common.h>
#include <kj/array.h>

#include "runtime_messages.hpp"

namespace actorflow::actors::detail {

/// Encodes everything of `m` but its tensor's bytes, for the Recv `key`.
kj::Array<capnp::word> encode_bulk_header(uint64_t key, const value_msg& m);

/// Decodes a header written by `encode_bulk_header`, checking every field
/// and that the tensor's dtype and shape need exactly `payload_bytes`
/// bytes, then makes `m->value.value` such a tensor for them to be read
/// into. Only numeric tensors travel this way.
core::status decode_bulk_header(kj::ArrayPtr<const capnp::word> words,
                                uint64_t payload_bytes, uint64_t* key,
                                value_msg* m);

} // namespace actorflow::actors::detail
