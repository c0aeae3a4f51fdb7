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
  // Process 0 holds the steps; each worker gets a process, each of its
  // devices a thread, numbered in the order they first appear.
  events.push_back(name_event("process_name", 0, 0, "steps"));
  events.push_back(name_event("thread_name", 0, 0, "steps"));
  std::map<std::string, int> pids;
  std::map<std::pair<std::string, std::string>, int> tids;
  auto track = [&](const device_step_stats& d) {
    auto [p, fresh_p]
      = pids.try_emplace(d.worker, static_cast<int>(pids.size()) + 1);
    if (fresh_p) {
      events.push_back(name_event("process_name", p->second, 0, d.worker));
      events.push_back(json{{"ph", "M"},
                            {"name", "process_sort_index"},
                            {"pid", p->second},
                            {"args", {{"sort_index", p->second}}}});
    }
    auto [t, fresh_t] = tids.try_emplace(std::make_pair(d.worker, d.device),
                                         static_cast<int>(tids.size()) + 1);
    if (fresh_t)
      events.push_back(
        name_event("thread_name", p->second, t->second, d.device));
    return std::make_pair(p->second, t->second);
  };
  // Sends by (step, tensor, frame, iteration), to draw arrows to their
  // Recvs.
  using flow_key = std::tuple<uint64_t, std::string, uint64_t, int64_t>;
  std::map<flow_key, std::pair<int64_t, std::pair<int, int>>> sends;
  std::vector<std::tuple<flow_key, int64_t, std::pair<int, int>>> recvs;
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
      auto [pid, tid] = track(d);
      for (const auto& n : d.nodes) {
        json args{{"op", n.op},
                  {"step", s.step},
                  {"frame", n.frame},
                  {"iteration", n.iter},
                  {"output_bytes", n.output_bytes}};
        if (!n.frame_name.empty())
          args["frame_name"] = n.frame_name;
        if (!n.tensor_name.empty())
          args["tensor_name"] = n.tensor_name;
        events.push_back(json{{"ph", "X"},
                              {"name", slice_name(n)},
                              {"cat", n.op},
                              {"pid", pid},
                              {"tid", tid},
                              {"ts", n.start_us - origin},
                              {"dur", n.end_us - n.start_us},
                              {"args", std::move(args)}});
        if (n.tensor_name.empty())
          continue;
        flow_key key{s.step, n.tensor_name, n.frame, n.iter};
        if (n.op == "_Send")
          sends[key] = {n.start_us - origin, {pid, tid}};
        else
          recvs.emplace_back(key, n.start_us - origin,
                             std::make_pair(pid, tid));
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
  for (const auto& [key, ts, where] : recvs) {
    auto i = sends.find(key);
    if (i == sends.end())
      continue;
    auto id = next_flow++;
    const auto& name = std::get<1>(key);
    events.push_back(json{{"ph", "s"},
                          {"name", name},
                          {"cat", "transfer"},
                          {"id", id},
                          {"pid", i->second.second.first},
                          {"tid", i->second.second.second},
                          {"ts", i->second.first}});
    events.push_back(json{{"ph", "f"},
                          {"bp", "e"},
                          {"name", name},
                          {"cat", "transfer"},
                          {"id", id},
                          {"pid", where.first},
                          {"tid", where.second},
                          {"ts", ts}});
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
