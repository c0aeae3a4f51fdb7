#include "actorflow/actors/chrome_trace.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

namespace actorflow::actors {

namespace {

using json = nlohmann::json;

/// A metadata event naming a process or a thread of the trace.
json name_event(const char* what, int pid, int tid, const std::string& name) {
  return json{{"ph", "M"},
              {"name", what},
              {"pid", pid},
              {"tid", tid},
              {"args", {{"name", name}}}};
}

/// The name of a firing's slice: the node, and for a loop its frame and
/// iteration.
std::string slice_name(const node_exec_stats& x) {
  if (x.frame_name.empty())
    return x.node;
  return x.node + " [" + x.frame_name + ":" + std::to_string(x.iter) + "]";
}

} // namespace

void chrome_trace::add(step_stats stats) {
  steps_.push_back(std::move(stats));
}

std::string chrome_trace::to_json() const {
  int64_t origin = 0;
  for (const auto& s : steps_)
    if (origin == 0 || s.start_us < origin)
      origin = s.start_us;
  json events = json::array();
  events.push_back(name_event("process_name", 0, 0, "steps"));
  events.push_back(name_event("thread_name", 0, 0, "steps"));
  // A process per worker, numbered as they first appear; a device's
  // firings on one or more threads ("lanes"): firings that overlap in time
  // (nodes run in parallel on a device) go to different lanes, so that the
  // slices of a thread never overlap.
  std::map<std::string, int> pids;
  struct lane {
    int tid;
    int64_t free_at; ///< When its last slice ends.
  };
  std::map<std::pair<std::string, std::string>, std::vector<lane>> lanes;
  int next_tid = 1;
  auto pid_of = [&](const std::string& worker) {
    auto [p, fresh]
      = pids.try_emplace(worker, static_cast<int>(pids.size()) + 1);
    if (fresh) {
      events.push_back(name_event("process_name", p->second, 0, worker));
      events.push_back(json{{"ph", "M"},
                            {"name", "process_sort_index"},
                            {"pid", p->second},
                            {"args", {{"sort_index", p->second}}}});
    }
    return p->second;
  };
  auto lane_of = [&](const device_step_stats& d, int pid, int64_t start,
                     int64_t end) {
    auto& ls = lanes[{d.worker, d.device}];
    for (auto& l : ls)
      if (l.free_at <= start) {
        l.free_at = end;
        return l.tid;
      }
    auto tid = next_tid++;
    ls.push_back(lane{tid, end});
    auto name
      = ls.size() == 1 ? d.device : d.device + " #" + std::to_string(ls.size());
    events.push_back(name_event("thread_name", pid, tid, name));
    events.push_back(json{{"ph", "M"},
                          {"name", "thread_sort_index"},
                          {"pid", pid},
                          {"tid", tid},
                          {"args", {{"sort_index", tid}}}});
    return tid;
  };
  // Sends by (step, tensor, frame, iteration), to draw arrows to their
  // Recvs.
  using flow_key = std::tuple<uint64_t, std::string, uint64_t, int64_t>;
  using place = std::tuple<int64_t, int, int>; // ts, pid, tid
  std::map<flow_key, place> sends;
  std::vector<std::pair<flow_key, place>> recvs;
  for (const auto& s : steps_) {
    events.push_back(json{{"ph", "X"},
                          {"name", "step " + std::to_string(s.step)},
                          {"cat", "step"},
                          {"pid", 0},
                          {"tid", 0},
                          {"ts", s.start_us - origin},
                          {"dur", s.end_us - s.start_us},
                          {"args",
                           {{"step", s.step},
                            {"partition_messages", s.partition_messages},
                            {"partition_bytes", s.partition_bytes},
                            {"process_messages", s.process_messages},
                            {"process_bytes", s.process_bytes}}}});
    for (const auto& d : s.devices) {
      auto pid = pid_of(d.worker);
      std::vector<const node_exec_stats*> firings;
      for (const auto& n : d.nodes)
        firings.push_back(&n);
      std::sort(firings.begin(), firings.end(),
                [](auto* x, auto* y) { return x->start_us < y->start_us; });
      for (const auto* n : firings) {
        auto tid = lane_of(d, pid, n->start_us, n->end_us);
        json args{{"op", n->op},
                  {"step", s.step},
                  {"frame", n->frame},
                  {"iteration", n->iter},
                  {"output_bytes", n->output_bytes}};
        if (!n->frame_name.empty())
          args["frame_name"] = n->frame_name;
        if (!n->tensor_name.empty())
          args["tensor_name"] = n->tensor_name;
        events.push_back(json{{"ph", "X"},
                              {"name", slice_name(*n)},
                              {"cat", n->op},
                              {"pid", pid},
                              {"tid", tid},
                              {"ts", n->start_us - origin},
                              {"dur", n->end_us - n->start_us},
                              {"args", std::move(args)}});
        if (n->tensor_name.empty())
          continue;
        flow_key key{s.step, n->tensor_name, n->frame, n->iter};
        place at{n->start_us - origin, pid, tid};
        if (n->op == "_Send")
          sends[key] = at;
        else
          recvs.emplace_back(std::move(key), at);
      }
      // The device's memory when the worker's part of the step ended.
      events.push_back(json{
        {"ph", "C"},
        {"name", "memory " + d.device},
        {"pid", pid},
        {"ts", s.end_us - origin},
        {"args",
         {{"bytes_in_use", d.bytes_in_use}, {"peak_bytes", d.peak_bytes}}}});
    }
  }
  uint64_t next_flow = 1;
  for (const auto& [key, to] : recvs) {
    auto i = sends.find(key);
    if (i == sends.end())
      continue;
    auto id = next_flow++;
    const auto& from = i->second;
    const auto& name = std::get<1>(key);
    // An arrow's ends: "s" at the Send's slice, "f" bound to the Recv's.
    auto end = [&](const char* ph, const place& at) {
      return json{{"ph", ph},
                  {"name", name},
                  {"cat", "transfer"},
                  {"id", id},
                  {"pid", std::get<1>(at)},
                  {"tid", std::get<2>(at)},
                  {"ts", std::get<0>(at)}};
    };
    events.push_back(end("s", from));
    auto finish = end("f", to);
    finish["bp"] = "e";
    events.push_back(std::move(finish));
  }
  json doc{
    {"traceEvents", std::move(events)},
    {"displayTimeUnit", "ms"},
    {"otherData", {{"producer", "actorflow"}, {"steps", steps_.size()}}}};
  return doc.dump();
}

core::status chrome_trace::write(const std::string& path) const {
  std::ofstream out{path, std::ios::binary | std::ios::trunc};
  if (!out)
    return core::not_found_error("cannot open trace file '", path,
                                 "' for writing");
  out << to_json() << '\n';
  out.close();
  if (!out)
    return core::internal_error("writing trace file '", path, "' failed");
  return core::status::ok();
}

} // namespace actorflow::actors
