#pragma once

/// The master's recovery part (master/recovery.cpp): lost workers, and
/// connecting to them again.

#include <caf/system_messages.hpp>

#include "master/state.hpp"

namespace actorflow::actors::detail {

/// Worker `dm.source` is gone: the steps and registrations that need it
/// fail now rather than wait for answers that cannot come, and so do later
/// runs that need it.
void on_worker_down(self_ptr self, const caf::down_msg& dm);

/// What begins a run again: master.cpp's `begin_run`.
using run_starter = void (*)(self_ptr self, waiting_run run);

/// Connects to gone worker `w` at its address again, checks that it is
/// the same task (its devices) and takes it back; the runs parked for it
/// begin again with `begin`, or fail.
void reconnect_worker(self_ptr self, size_t w, run_starter begin);

} // namespace actorflow::actors::detail
