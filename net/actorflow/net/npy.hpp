#pragma once

/// Deprecated: moved to actorflow/interop/npy.hpp (namespace
/// `actorflow::interop`). This forwarding header keeps the old names
/// compiling for one release and then goes.

#include "actorflow/interop/npy.hpp"

namespace actorflow::net {

using interop::decode_npy;
using interop::encode_npy;
using interop::load_npy;
using interop::save_npy;

} // namespace actorflow::net
