#pragma once

#include <array>
#include <cstdint>
#include <memory>
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
  /// Recv only: counted as work of its iteration while half-arrived, so
  /// the iteration does not retire here before the value has come (the
  /// frame's `parallel_iterations` then paces the partition sending it).
  bool counts_work = false;
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
/// step, at a time; a few with parallel iterations or steps in flight, up
/// to `parallel_iterations` for a node that joins one iteration's value
/// with the iteration before's): the first few entries sit in the table
/// itself, the next ones in slots allocated once and kept, all found by
/// comparing tags, and only beyond those do entries go to a hash map. An
/// entry's input vector stays with its slot, so a tag that completes and
/// the next one allocate nothing.
class pending_table {
public:
  /// The entry of `t`, or nullptr.
  pending_inputs* find(const tag& t) {
    for (auto& s : near_)
      if (s.used && s.key == t)
        return &s.value;
    if (more_used_ > 0)
      for (auto& s : more_)
        if (s->used && s->key == t)
          return &s->value;
    if (far_.empty())
      return nullptr;
    auto i = far_.find(t);
    return i != far_.end() ? &i->second : nullptr;
  }

  /// Adds an entry for `t`, which has none; the caller sets its fields
  /// (its inputs hold no values, their size is the last entry's).
  pending_inputs& add(const tag& t) {
    for (auto& s : near_)
      if (!s.used)
        return take(s, t);
    if (more_used_ < more_.size())
      for (auto& s : more_)
        if (!s->used) {
          ++more_used_;
          return take(*s, t);
        }
    if (more_.size() < max_more) {
      more_.push_back(std::make_unique<slot>());
      ++more_used_;
      return take(*more_.back(), t);
    }
    return far_[t];
  }

  /// Removes `p`, the entry of `t`, letting go of its input values.
  void remove(const tag& t, pending_inputs& p) {
    for (auto& s : near_)
      if (&s.value == &p) {
        free(s);
        return;
      }
    for (auto& s : more_)
      if (&s->value == &p) {
        free(*s);
        --more_used_;
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
        free(s);
      }
    for (auto& s : more_)
      if (s->used && pred(s->key)) {
        f(s->value);
        free(*s);
        --more_used_;
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

  /// Slots kept beyond the table's own before entries go to the map.
  static constexpr size_t max_more = 28;

  static pending_inputs& take(slot& s, const tag& t) {
    s.used = true;
    s.key = t;
    return s.value;
  }

  static void free(slot& s) {
    release(s.value.inputs);
    s.used = false;
  }

  std::array<slot, 4> near_;
  std::vector<std::unique_ptr<slot>> more_;
  size_t more_used_ = 0;
  std::unordered_map<tag, pending_inputs, tag_hash> far_;
};

} // namespace actorflow::actors::detail
