#pragma once

/// Deprecated: moved to actorflow/interop/summary_writer.hpp (namespace
/// `actorflow::interop`). This forwarding header keeps the old name
/// compiling for one release and then goes.

#include "actorflow/interop/summary_writer.hpp"

namespace actorflow::net {

using interop::summary_writer;

} // namespace actorflow::net
