# The messages that cross processes between workers and masters. Tensors
# and graphs have the same form as in graph files (graph.capnp).
@0xcebb940ea37a554f;

using Graph = import "graph.capnp";

$import "/capnp/c++.capnp".namespace("actorflow::net::schema");

struct Status {
  code @0 :UInt8;         # actorflow::core::errc; 0 is ok
  message @1 :Text;
  node @2 :Text;
  op @3 :Text;
  device @4 :Text;
}

struct Tag {
  step @0 :UInt64;
  frame @1 :UInt64;       # 0 is the root frame
  iter @2 :Int64;         # -1: a loop constant, for every iteration
}

# A value from a Send to the Recv of another worker.
struct Value {
  tag @0 :Tag;
  slot @1 :Int32;
  node @2 :Int32;         # the receiving node's index in its partition
  state @3 :UInt8;        # 0 live, 1 dead, 2 failed
  entry @4 :Bool;
  tensor @5 :Graph.Tensor;
  hasTensor @6 :Bool;
}

struct IndexedTensor {
  index @0 :Int32;
  state @1 :UInt8;
  tensor @2 :Graph.Tensor;
  hasTensor @3 :Bool;
}

struct PartitionSet {
  graphs @0 :List(Graph.Graph);
}

struct RunStep {
  handle @0 :UInt64;
  step @1 :UInt64;
  feeds @2 :List(IndexedTensor);
  trace @3 :Bool;         # record the step's firings (StepReport.stats)
}

# A traced step's firings, transfers and memory on one worker
# (actorflow::actors::step_stats; times in microseconds since the epoch).
struct NodeExecStats {
  node @0 :Text;
  op @1 :Text;
  frameName @2 :Text;
  frame @3 :UInt64;
  iter @4 :Int64;
  startMicros @5 :Int64;
  endMicros @6 :Int64;
  outputBytes @7 :Int64;
  tensorName @8 :Text;
}

struct DeviceStepStats {
  device @0 :Text;
  worker @1 :Text;
  nodes @2 :List(NodeExecStats);
  bytesInUse @3 :Int64;
  peakBytes @4 :Int64;
}

struct StepStats {
  devices @0 :List(DeviceStepStats);
  partitionMessages @1 :Int64;
  partitionBytes @2 :Int64;
  processMessages @3 :Int64;
  processBytes @4 :Int64;
}

struct StepReport {
  step @0 :UInt64;
  fetches @1 :List(IndexedTensor);
  status @2 :Status;
  stats @3 :StepStats;    # set when the step was traced
}

# The header of a value on the bulk path between two workers (a plain TCP
# connection beside CAF's): the value without its tensor's bytes, which
# follow the header on the connection; the tensor here has its dtype and
# shape only. `key` names the receiving Recv at its worker.
struct BulkValue {
  key @0 :UInt64;
  value @1 :Value;
}
