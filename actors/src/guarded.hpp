#pragma once

#include <exception>
#include <new>

#include "actorflow/core/status.hpp"

namespace actorflow::actors {

/// Returns what `fn` returns, or the exception it threw as a status: an
/// actor answers a request that fails this way rather than dying of it.
template <class F>
core::status guarded(const char* doing, F&& fn) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return core::resource_exhausted_error(doing, " ran out of memory");
  } catch (const std::exception& e) {
    return core::internal_error(doing, " threw: ", e.what());
  }
}

} // namespace actorflow::actors
