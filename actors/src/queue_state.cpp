#include "queue_state.hpp"

namespace actorflow::actors {

queue_state::queue_state(ops::queue_spec spec)
  : spec_(std::move(spec)),
    random_(spec_.seed != 0 ? spec_.seed : std::random_device{}()) {
  // nop
}

queue_state::~queue_state() {
  for (auto& r : enqueues_)
    r.done(core::cancelled_error("queue '", spec_.name, "' was destroyed"));
  for (auto& r : dequeues_)
    r.done(core::cancelled_error("queue '", spec_.name, "' was destroyed"), {});
}

void queue_state::enqueue(std::vector<core::tensor> components, bool many,
                          ops::queue::done_fn done) {
  if (closed_) {
    done(core::cancelled_error("queue '", spec_.name, "' is closed"));
    return;
  }
  enqueue_request r;
  if (many) {
    std::vector<std::vector<core::tensor>> columns;
    for (const auto& c : components)
      columns.push_back(ops::queue::unstack_rows(c));
    auto rows = columns.empty() ? 0 : columns.front().size();
    r.pending.resize(rows);
    for (size_t i = 0; i < rows; ++i)
      for (auto& column : columns)
        r.pending[i].push_back(std::move(column[i]));
  } else {
    r.pending.push_back(std::move(components));
  }
  r.done = std::move(done);
  enqueues_.push_back(std::move(r));
  flush();
}

void queue_state::dequeue(int64_t n, bool many, bool up_to,
                          ops::queue::dequeue_fn done) {
  dequeues_.push_back(dequeue_request{n, many, up_to, {}, std::move(done)});
  flush();
}

void queue_state::close(bool cancel_pending_enqueues,
                        ops::queue::done_fn done) {
  closed_ = true;
  if (cancel_pending_enqueues) {
    auto cancelled = std::move(enqueues_);
    enqueues_.clear();
    for (auto& r : cancelled)
      r.done(core::cancelled_error("an enqueue into queue '", spec_.name,
                                   "' was cancelled: the queue was closed"));
  }
  flush();
  done(core::status::ok());
}

bool queue_state::has_room() const noexcept {
  return spec_.capacity < 0 || size() < spec_.capacity;
}

bool queue_state::serve(enqueue_request& r) {
  while (r.next < r.pending.size() && has_room())
    elements_.push_back(std::move(r.pending[r.next++]));
  return r.next == r.pending.size();
}

bool queue_state::serve(dequeue_request& r) {
  auto want = static_cast<size_t>(r.n);
  // A shuffling queue keeps min_after_dequeue elements until it is closed.
  auto floor = spec_.shuffle && !closed_ ? spec_.min_after_dequeue : 0;
  while (r.taken.size() < want && size() > floor) {
    if (spec_.shuffle) {
      auto k = static_cast<size_t>(random_() % elements_.size());
      r.taken.push_back(std::move(elements_[k]));
      if (k + 1 != elements_.size())
        elements_[k] = std::move(elements_.back());
      elements_.pop_back();
    } else {
      r.taken.push_back(std::move(elements_.front()));
      elements_.pop_front();
    }
  }
  if (r.taken.size() == want) {
    deliver(r);
    return true;
  }
  // Closed with no enqueue left to wait for: nothing more will come.
  if (!closed_ || !enqueues_.empty())
    return false;
  if (r.up_to && !r.taken.empty()) {
    deliver(r);
    return true;
  }
  // Put back what was taken, in order, for other requests.
  for (auto i = r.taken.rbegin(); i != r.taken.rend(); ++i)
    elements_.push_front(std::move(*i));
  r.taken.clear();
  r.done(core::out_of_range_error("queue '", spec_.name,
                                  "' is closed and has too few elements "
                                  "(requested ",
                                  r.n, ", has ", size(), ")"),
         {});
  return true;
}

void queue_state::deliver(dequeue_request& r) {
  std::vector<core::tensor> out;
  for (size_t i = 0; r.many && i < spec_.types.size(); ++i)
    for (const auto& e : r.taken)
      if (e[i].shape() != r.taken.front()[i].shape()) {
        r.done(core::invalid_argument_error(
                 "dequeue_many from queue '", spec_.name,
                 "' needs elements of one shape, component ", i, " has ",
                 r.taken.front()[i].shape().to_string(), " and ",
                 e[i].shape().to_string()),
               {});
        return;
      }
  if (!r.many) {
    out = std::move(r.taken.front());
  } else {
    for (size_t i = 0; i < spec_.types.size(); ++i) {
      std::vector<core::tensor> rows;
      rows.reserve(r.taken.size());
      for (auto& e : r.taken)
        rows.push_back(std::move(e[i]));
      core::shape row
        = !rows.empty() ? rows.front().shape()
          : !spec_.shapes.empty() && spec_.shapes[i].fully_defined()
            ? spec_.shapes[i]
            : core::shape{};
      out.push_back(ops::queue::stack_rows(rows, spec_.types[i], row));
    }
  }
  r.done(core::status::ok(), std::move(out));
}

void queue_state::flush() {
  for (bool progress = true; progress;) {
    progress = false;
    while (!enqueues_.empty()) {
      auto before = size();
      if (serve(enqueues_.front())) {
        auto r = std::move(enqueues_.front());
        enqueues_.pop_front();
        r.done(core::status::ok());
        progress = true;
        continue;
      }
      progress = progress || size() != before;
      break;
    }
    while (!dequeues_.empty()) {
      auto before = size();
      if (serve(dequeues_.front())) {
        dequeues_.pop_front();
        progress = true;
        continue;
      }
      progress = progress || size() != before;
      break;
    }
  }
}

} // namespace actorflow::actors
