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
}

struct StepReport {
  step @0 :UInt64;
  fetches @1 :List(IndexedTensor);
  status @2 :Status;
}

# The header of a value on the bulk path between two workers (a plain TCP
# connection beside CAF's): the value without its tensor's bytes, which
# follow the header on the connection; the tensor here has its dtype and
# shape only. `key` names the receiving Recv at its worker.
struct BulkValue {
  key @0 :UInt64;
  value @1 :Value;
}
