# The wire and file form of actorflow graphs.
@0xf7b1a6e7688cb034;

using Tensor = import "/tensor.capnp".Tensor; # one tensor form everywhere

$import "/capnp/c++.capnp".namespace("actorflow::net::schema");

struct Shape {
  unknownRank @0 :Bool;
  dims @1 :List(Int64);   # -1 is an unknown dimension
}

struct AttrValue {
  union {
    i @0 :Int64;
    f @1 :Float64;
    b @2 :Bool;
    s @3 :Text;
    type @4 :UInt8;
    shape @5 :Shape;
    tensor @6 :Tensor;
    listI @7 :List(Int64);
    listF @8 :List(Float64);
    listB @9 :List(Bool);
    listS @10 :List(Text);
    listType @11 :List(UInt8);
    listShape @12 :List(Shape);
    listTensor @13 :List(Tensor);
  }
}

struct Attr {
  name @0 :Text;
  value @1 :AttrValue;
}

struct Node {
  name @0 :Text;
  op @1 :Text;
  inputs @2 :List(Text);  # "node:port", "node" or "^node"
  device @3 :Text;
  attrs @4 :List(Attr);   # sorted by name
}

struct Graph {
  version @0 :UInt32;
  nodes @1 :List(Node);
}
