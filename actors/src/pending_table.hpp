#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "actorflow/ops/entry.hpp"
#include "runtime_messages.hpp"

namespace actorflow::actors::detail {

/// The inputs of one tag collected so far.
struct pending_inputs {
  int remaining = 0;
  value_state state = value_state::live;
  std::vector<ops::entry> inputs;
  // Merge only: control inputs still to come, whether a live data input
  // came, and whether the node has fired for this tag.
  int controls_left = 0;
  bool has_live = false;
  bool fired = false;
  /// Recv only: tokens of local inputs kept while the value from another
  /// worker is on its way (a half-arrived Recv is outstanding work).
  int64_t held_tokens = 0;
};

/// Lets go of the values in `inputs` but keeps its size: the next firing
/// fills the same entries without constructing them again.
inline void release(std::vector<ops::entry>& inputs) {
  for (auto& e : inputs) {
    e.value = core::tensor{};
    e.ref.reset();
  }
}

/// The tags of one node whose inputs have not all arrived. A node rarely
/// waits on more than a few tags at once (an iteration of its loop, or a
/// step, at a time; a few with parallel iterations or steps in flight):
/// the first few entries sit in the table itself, found by comparing tags,
/// and only more go to a hash map. An entry's input vector stays with its
/// slot, so a tag that completes and the next one allocate nothing.
class pending_table {
public:
  /// The entry of `t`, or nullptr.
  pending_inputs* find(const tag& t) {
    for (auto& s : near_)
      if (s.used && s.key == t)
        return &s.value;
    if (far_.empty())
      return nullptr;
    auto i = far_.find(t);
    return i != far_.end() ? &i->second : nullptr;
  }

  /// Adds an entry for `t`, which has none; the caller sets its fields
  /// (its inputs hold no values, their size is the last entry's).
  pending_inputs& add(const tag& t) {
    for (auto& s : near_)
      if (!s.used) {
        s.used = true;
        s.key = t;
        return s.value;
      }
    return far_[t];
  }

  /// Removes `p`, the entry of `t`, letting go of its input values.
  void remove(const tag& t, pending_inputs& p) {
    for (auto& s : near_)
      if (&s.value == &p) {
        release(p.inputs);
        s.used = false;
        return;
      }
    far_.erase(t);
  }

  /// Removes every entry whose tag satisfies `pred`, after `f` has seen it.
  template <class Predicate, class F>
  void remove_if(Predicate pred, F f) {
    for (auto& s : near_)
      if (s.used && pred(s.key)) {
        f(s.value);
        release(s.value.inputs);
        s.used = false;
      }
    for (auto i = far_.begin(); i != far_.end();)
      if (pred(i->first)) {
        f(i->second);
        i = far_.erase(i);
      } else {
        ++i;
      }
  }

private:
  struct slot {
    bool used = false;
    tag key;
    pending_inputs value;
  };

  std::array<slot, 4> near_;
  std::unordered_map<tag, pending_inputs, tag_hash> far_;
};

} // namespace actorflow::actors::detail
