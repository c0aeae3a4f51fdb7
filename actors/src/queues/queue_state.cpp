#include "queues/queue_state.hpp"

#include <algorithm>
#include <cstring>

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
                          uint64_t step, ops::queue::done_fn done) {
  if (closed_) {
    done(core::cancelled_error("queue '", spec_.name, "' is closed"));
    return;
  }
  if (cancelled_.count(step) > 0) {
    done(step_failed("n enqueue"));
    return;
  }
  enqueue_request r;
  auto rows = many && !components.empty() ? components.front().shape().dim(0)
                                          : int64_t{1};
  auto batch
    = std::make_shared<const std::vector<core::tensor>>(std::move(components));
  if (many) {
    r.pending.reserve(static_cast<size_t>(rows));
    for (int64_t row = 0; row < rows; ++row)
      r.pending.push_back(element{batch, row});
  } else {
    r.pending.push_back(element{std::move(batch), -1});
  }
  r.step = step;
  r.done = std::move(done);
  enqueues_.push_back(std::move(r));
  flush();
}

void queue_state::dequeue(int64_t n, bool many, bool up_to, uint64_t step,
                          ops::queue::dequeue_fn done) {
  if (cancelled_.count(step) > 0) {
    done(step_failed(" dequeue"), {});
    return;
  }
  dequeues_.push_back(
    dequeue_request{n, many, up_to, {}, step, std::move(done)});
  flush();
}

core::status queue_state::step_failed(const char* what) const {
  return core::cancelled_error("a", what, " of queue '", spec_.name,
                               "' was cancelled: its step failed");
}

void queue_state::cancel_step(uint64_t step) {
  if (!cancelled_.insert(step).second)
    return;
  cancelled_order_.push_back(step);
  if (cancelled_order_.size() > max_cancelled_steps) {
    cancelled_.erase(cancelled_order_.front());
    cancelled_order_.pop_front();
  }
  std::vector<ops::queue::done_fn> enqueues;
  for (auto i = enqueues_.begin(); i != enqueues_.end();)
    if (i->step == step) {
      enqueues.push_back(std::move(i->done));
      i = enqueues_.erase(i);
    } else {
      ++i;
    }
  std::vector<ops::queue::dequeue_fn> dequeues;
  for (auto i = dequeues_.begin(); i != dequeues_.end();)
    if (i->step == step) {
      // What it had taken goes back in front, in its order.
      for (auto e = i->taken.rbegin(); e != i->taken.rend(); ++e)
        elements_.push_front(std::move(*e));
      dequeues.push_back(std::move(i->done));
      i = dequeues_.erase(i);
    } else {
      ++i;
    }
  for (auto& done : enqueues)
    done(step_failed("n enqueue"));
  for (auto& done : dequeues)
    done(step_failed(" dequeue"), {});
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

core::shape queue_state::component_shape(const element& e, size_t i) {
  const auto& t = (*e.batch)[i];
  if (e.row < 0)
    return t.shape();
  const auto& dims = t.shape().dims();
  return core::shape{std::vector<int64_t>(dims.begin() + 1, dims.end())};
}

void queue_state::copy_component(const std::vector<element>& elements, size_t i,
                                 core::tensor& out) {
  auto strings = out.dtype() == core::dtype::string;
  auto value_bytes = core::size_of(out.dtype());
  int64_t written = 0; // values
  for (size_t k = 0; k < elements.size();) {
    const auto& e = elements[k];
    const auto& t = (*e.batch)[i];
    auto per_element
      = e.row < 0 ? t.num_elements() : t.num_elements() / t.shape().dim(0);
    // A run: the rows of one batch that follow each other.
    auto end = k + 1;
    while (e.row >= 0 && end < elements.size() && elements[end].batch == e.batch
           && elements[end].row == e.row + static_cast<int64_t>(end - k))
      ++end;
    auto from = e.row < 0 ? 0 : e.row * per_element;
    auto count = per_element * static_cast<int64_t>(end - k);
    if (strings)
      std::copy_n(t.data<std::string>() + from, count,
                  out.mutable_data<std::string>() + written);
    else if (count > 0)
      std::memcpy(static_cast<char*>(out.raw_mutable_data())
                    + static_cast<size_t>(written) * value_bytes,
                  static_cast<const char*>(t.raw_data())
                    + static_cast<size_t>(from) * value_bytes,
                  static_cast<size_t>(count) * value_bytes);
    written += count;
    k = end;
  }
}

void queue_state::deliver(dequeue_request& r) {
  const auto& first = r.taken.empty() ? element{} : r.taken.front();
  std::vector<core::tensor> out;
  for (size_t i = 0; i < spec_.types.size(); ++i) {
    if (!r.many) {
      const auto& t = (*first.batch)[i];
      if (first.row < 0) {
        out.push_back(t);
        continue;
      }
      core::tensor row{t.dtype(), component_shape(first, i)};
      copy_component({first}, i, row);
      out.push_back(std::move(row));
      continue;
    }
    auto shape = first.batch ? component_shape(first, i)
                 : !spec_.shapes.empty() && spec_.shapes[i].fully_defined()
                   ? spec_.shapes[i]
                   : core::shape{};
    // Rows of one batch share their shape; elements of other enqueues
    // may not.
    for (const auto& e : r.taken)
      if (e.batch != first.batch && component_shape(e, i) != shape) {
        r.done(core::invalid_argument_error(
                 "dequeue_many from queue '", spec_.name,
                 "' needs elements of one shape, component ", i, " has ",
                 shape.to_string(), " and ", component_shape(e, i).to_string()),
               {});
        return;
      }
    auto dims = shape.dims();
    dims.insert(dims.begin(), static_cast<int64_t>(r.taken.size()));
    core::tensor stacked{spec_.types[i], core::shape{std::move(dims)}};
    copy_component(r.taken, i, stacked);
    out.push_back(std::move(stacked));
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
