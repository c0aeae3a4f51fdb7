#pragma once

// The exit status by which a cluster task tells `actorflow cluster up` it
// could not start, as opposed to failing while it ran.

namespace actorflow::apps {

/// A task that could not start -- its cluster file or task unusable, its
/// address taken, its engine or metrics endpoint refused -- exits with
/// this (sysexits' EX_UNAVAILABLE): started again it would fail the same
/// way, so `cluster up` gives up at once, naming it.
constexpr int cannot_start_exit = 69;

} // namespace actorflow::apps
