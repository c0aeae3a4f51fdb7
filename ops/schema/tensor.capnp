# The one form of a tensor in everything actorflow writes with Cap'n Proto:
# graph files (net/schema/graph.capnp), the messages between processes
# (net/schema/wire.capnp) and checkpoints (checkpoint.capnp).
@0xdb957fa5f020e117;

$import "/capnp/c++.capnp".namespace("actorflow::ops::schema");

struct Tensor {
  dtype @0 :UInt8;        # actorflow::core::dtype
  shape @1 :List(Int64);
  data @2 :Data;          # row-major elements, host byte order
  strings @3 :List(Data); # the elements of string tensors
}
