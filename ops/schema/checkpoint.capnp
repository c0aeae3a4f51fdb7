# The body of an actorflow checkpoint file: named tensors in the form every
# actorflow message has (tensor.capnp). The file adds a header (magic,
# body length, CRC-32 of the body); see ops/src/checkpoint_file.cpp.
@0xb7ca748f28675334;

using import "tensor.capnp".Tensor;

$import "/capnp/c++.capnp".namespace("actorflow::ops::schema");

struct NamedTensor {
  name @0 :Text;
  tensor @1 :Tensor;
}

struct Checkpoint {
  tensors @0 :List(NamedTensor);
}
