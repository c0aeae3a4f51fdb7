// The Cap'n Proto encoding of the messages that cross processes (see
// protocol.hpp and net/schema/wire.capnp). CAF calls these only when it
// serializes a message for the network: a local send shares its tensors.
//
// A message is one length-prefixed byte sequence in CAF's stream holding a
// flat Cap'n Proto message. A tensor's bytes are referenced by the builder,
// not copied, and written once into CAF's buffer; on the way in they are
// read into an aligned word array, checked with traversal and size limits,
// and copied once into the tensor.

#include <cstring>
#include <limits>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>
#include <kj/io.h>

#include "actorflow/core/caf_error.hpp"
#include "actorflow/core/logging.hpp"
#include "capnp_codec.hpp"
#include "runtime_messages.hpp"
#include "transport/wire_codec.hpp"
#include "wire.capnp.h"

namespace actorflow::actors {

namespace {

namespace schema = net::schema;

/// The largest encoded message accepted: a tensor's data is at most
/// 512 MiB in Cap'n Proto, and BASP's length field is 32 bits.
constexpr size_t max_message_bytes = size_t{1} << 30;

/// Why a message from another process does not decode.
core::status malformed(const char* what, std::string_view why) {
  return core::invalid_argument_error("malformed ", what, " message: ", why);
}

/// Forwards Cap'n Proto's output into CAF's serializer.
class caf_output : public kj::OutputStream {
public:
  explicit caf_output(caf::serializer& f) : f_(f) {
  }

  void write(const void* buffer, size_t size) override {
    if (!err_ && size > 0)
      err_ = f_.apply_raw(size, const_cast<void*>(buffer));
  }

  caf::error& error() noexcept {
    return err_;
  }

private:
  caf::serializer& f_;
  caf::error err_;
};

/// Builds a message with `fill` and writes it as one byte sequence.
template <class Root, class Fill>
caf::error save(caf::serializer& f, const char* what, Fill&& fill) {
  try {
    capnp::MallocMessageBuilder mb;
    auto root = mb.initRoot<Root>();
    auto orphanage = mb.getOrphanage();
    if (auto err = fill(root, orphanage))
      return err;
    auto size = capnp::computeSerializedSizeInWords(mb) * sizeof(capnp::word);
    if (auto err = f.begin_sequence(size))
      return err;
    caf_output out{f};
    capnp::writeMessage(out, mb);
    if (out.error())
      return std::move(out.error());
    return f.end_sequence();
  } catch (const kj::Exception& e) {
    return core::to_error(core::internal_error(
      "encoding a ", what, " message failed: ", e.getDescription().cStr()));
  }
}

/// Reads one byte sequence written by `save` into `x` by way of `read`.
/// What does not decode is not CAF's error, which would drop the message
/// without a word of where it came from: `x` arrives empty with its
/// `wire_error` set, and its receiver disconnects the sender
/// (`detail::refuse_malformed`). Only a sequence longer than the bytes
/// there fails here.
template <class Root, class T, class Read>
caf::error load(caf::deserializer& f, const char* what, T& x, Read&& read) {
  auto refuse = [&](core::status why) {
    x = T{};
    x.wire_error = std::move(why);
    return caf::error{};
  };
  size_t size = 0;
  if (auto err = f.begin_sequence(size))
    return err;
  if (size > max_message_bytes) // never read: the rest of the message
    return refuse(malformed(what, "it exceeds the size limit of 1 GiB"));
  auto words = kj::heapArray<capnp::word>((size + sizeof(capnp::word) - 1)
                                          / sizeof(capnp::word));
  if (auto err = f.apply_raw(size, words.begin()))
    return err;
  if (auto err = f.end_sequence())
    return err;
  if (size == 0 || size % sizeof(capnp::word) != 0)
    return refuse(malformed(what, "its size is not a positive multiple of 8"));
  try {
    capnp::ReaderOptions opts;
    opts.traversalLimitInWords = words.size() * 2 + 1024;
    opts.nestingLimit = 16;
    capnp::FlatArrayMessageReader reader{words.asPtr(), opts};
    auto st = read(reader.getRoot<Root>());
    if (!st.is_ok())
      return refuse(malformed(what, st.message()));
    return caf::none;
  } catch (const kj::Exception& e) {
    return refuse(malformed(what, e.getDescription().cStr()));
  }
}

core::status decode_state(uint8_t raw, value_state* out) {
  if (raw > static_cast<uint8_t>(value_state::failed))
    return core::invalid_argument_error("unknown value state ",
                                        static_cast<int>(raw));
  *out = static_cast<value_state>(raw);
  return core::status::ok();
}

void encode_status(const core::status& x, schema::Status::Builder out) {
  out.setCode(static_cast<uint8_t>(x.code()));
  if (x.is_ok())
    return;
  out.setMessage(x.message());
  out.setNode(x.node());
  out.setOp(x.op());
  out.setDevice(x.device());
}

core::status decode_status(schema::Status::Reader in, core::status* out) {
  auto code = static_cast<core::errc>(in.getCode());
  if (code == core::errc::ok) {
    *out = core::status::ok();
    return core::status::ok();
  }
  if (core::to_string(code) == "unknown")
    return core::invalid_argument_error("unknown status code ",
                                        static_cast<int>(in.getCode()));
  *out = core::status{code, in.getMessage().cStr()}.with_context(
    in.getNode().cStr(), in.getOp().cStr(), in.getDevice().cStr());
  return core::status::ok();
}

void encode_indexed(const indexed_tensor& x, schema::IndexedTensor::Builder out,
                    capnp::Orphanage& orphanage) {
  out.setIndex(x.index);
  out.setState(static_cast<uint8_t>(x.state));
  out.setHasTensor(x.value.valid());
  if (x.value.valid())
    net::detail::encode_tensor(x.value, out.initTensor(), &orphanage);
}

core::status decode_indexed(schema::IndexedTensor::Reader in,
                            indexed_tensor* out) {
  out->index = in.getIndex();
  if (out->index < 0)
    return core::invalid_argument_error("negative tensor index ", out->index);
  ACTORFLOW_RETURN_IF_ERROR(decode_state(in.getState(), &out->state));
  if (in.getHasTensor())
    ACTORFLOW_RETURN_IF_ERROR(
      net::detail::decode_tensor(in.getTensor(), &out->value));
  return core::status::ok();
}

template <class List>
void encode_indexed_list(const std::vector<indexed_tensor>& xs, List out,
                         capnp::Orphanage& orphanage) {
  for (size_t i = 0; i < xs.size(); ++i)
    encode_indexed(xs[i], out[static_cast<unsigned>(i)], orphanage);
}

template <class List>
core::status decode_indexed_list(List in, std::vector<indexed_tensor>* out) {
  out->clear();
  out->resize(in.size());
  for (unsigned i = 0; i < in.size(); ++i)
    ACTORFLOW_RETURN_IF_ERROR(decode_indexed(in[i], &(*out)[i]));
  return core::status::ok();
}

} // namespace

// -- value_msg ----------------------------------------------------------------

namespace {

/// Everything of `x` but, unless `with_bytes`, its tensor's elements.
caf::error encode_value(const value_msg& x, schema::Value::Builder out,
                        capnp::Orphanage& orphanage, bool with_bytes) {
  if (x.value.ref)
    return core::to_error(
      core::internal_error("a variable reference cannot leave its process"));
  auto t = out.initTag();
  t.setStep(x.tag.step);
  t.setFrame(x.tag.frame);
  t.setIter(x.tag.iter);
  out.setSlot(x.slot);
  out.setNode(x.node);
  out.setState(static_cast<uint8_t>(x.state));
  out.setEntry(x.entry);
  out.setHasTensor(x.value.value.valid());
  if (!x.value.value.valid())
    return caf::error{};
  if (with_bytes) {
    net::detail::encode_tensor(x.value.value, out.initTensor(), &orphanage);
  } else {
    auto tensor = out.initTensor();
    tensor.setDtype(static_cast<uint8_t>(x.value.value.dtype()));
    const auto& dims = x.value.value.shape().dims();
    auto shape = tensor.initShape(static_cast<unsigned>(dims.size()));
    for (size_t i = 0; i < dims.size(); ++i)
      shape.set(static_cast<unsigned>(i), dims[i]);
  }
  return caf::error{};
}

/// Decodes all of `x` but its tensor.
core::status decode_value_fields(schema::Value::Reader in, value_msg& x) {
  x = value_msg{};
  x.tag.step = in.getTag().getStep();
  x.tag.frame = in.getTag().getFrame();
  x.tag.iter = in.getTag().getIter();
  if (x.tag.iter < invariant_iter)
    return core::invalid_argument_error("bad iteration ", x.tag.iter);
  x.slot = in.getSlot();
  x.node = in.getNode();
  if (x.slot < control_slot || x.node < 0)
    return core::invalid_argument_error("bad slot ", x.slot, " or node ",
                                        x.node);
  ACTORFLOW_RETURN_IF_ERROR(decode_state(in.getState(), &x.state));
  x.entry = in.getEntry();
  return core::status::ok();
}

} // namespace

caf::error inspect(caf::serializer& f, value_msg& x) {
  return save<schema::Value>(
    f, "value", [&](schema::Value::Builder out, capnp::Orphanage& orphanage) {
      return encode_value(x, out, orphanage, true);
    });
}

caf::error inspect(caf::deserializer& f, value_msg& x) {
  return load<schema::Value>(f, "value", x, [&](schema::Value::Reader in) {
    ACTORFLOW_RETURN_IF_ERROR(decode_value_fields(in, x));
    if (in.getHasTensor())
      ACTORFLOW_RETURN_IF_ERROR(
        net::detail::decode_tensor(in.getTensor(), &x.value.value));
    return core::status::ok();
  });
}

namespace detail {

kj::Array<capnp::word> encode_bulk_header(uint64_t key, const value_msg& m) {
  capnp::MallocMessageBuilder mb;
  auto root = mb.initRoot<schema::BulkValue>();
  root.setKey(key);
  auto orphanage = mb.getOrphanage();
  encode_value(m, root.initValue(), orphanage, false);
  return capnp::messageToFlatArray(mb);
}

core::status decode_bulk_header(kj::ArrayPtr<const capnp::word> words,
                                uint64_t payload_bytes, uint64_t* key,
                                value_msg* m) {
  try {
    capnp::ReaderOptions opts;
    opts.traversalLimitInWords = words.size() * 2 + 1024;
    opts.nestingLimit = 16;
    capnp::FlatArrayMessageReader reader{words, opts};
    auto in = reader.getRoot<schema::BulkValue>();
    *key = in.getKey();
    ACTORFLOW_RETURN_IF_ERROR(decode_value_fields(in.getValue(), *m));
    if (!in.getValue().getHasTensor())
      return core::invalid_argument_error("a bulk value without a tensor");
    core::dtype type;
    core::shape shape;
    ACTORFLOW_RETURN_IF_ERROR(net::detail::decode_tensor_header(
      in.getValue().getTensor(), &type, &shape));
    if (type == core::dtype::string || type == core::dtype::bool_)
      return core::invalid_argument_error("a bulk value of dtype ",
                                          core::to_string(type));
    auto want
      = static_cast<uint64_t>(shape.num_elements()) * core::size_of(type);
    if (want != payload_bytes)
      return core::invalid_argument_error(
        "tensor of dtype ", core::to_string(type), " and shape ",
        shape.to_string(), " needs ", want, " bytes, the frame has ",
        payload_bytes);
    return core::tensor::make(core::host_allocator(), type, shape,
                              &m->value.value);
  } catch (const kj::Exception& e) {
    return core::invalid_argument_error("malformed bulk header: ",
                                        e.getDescription().cStr());
  }
}

} // namespace detail

std::string to_string(const value_msg& x) {
  return core::detail::str_cat("value_msg(step ", x.tag.step, ", frame ",
                               x.tag.frame, ", iter ", x.tag.iter, ", node ",
                               x.node, ", slot ", x.slot, ")");
}

// -- partition_set ------------------------------------------------------------

caf::error inspect(caf::serializer& f, partition_set& x) {
  return save<schema::PartitionSet>(
    f, "partition set",
    [&](schema::PartitionSet::Builder out, capnp::Orphanage&) {
      auto graphs = out.initGraphs(static_cast<unsigned>(x.graphs.size()));
      for (size_t i = 0; i < x.graphs.size(); ++i)
        net::detail::encode_graph(x.graphs[i],
                                  graphs[static_cast<unsigned>(i)]);
      return caf::error{};
    });
}

caf::error inspect(caf::deserializer& f, partition_set& x) {
  return load<schema::PartitionSet>(
    f, "partition set", x, [&](schema::PartitionSet::Reader in) {
      x.graphs.clear();
      x.types.clear(); // the worker validates what came over the wire
      x.graphs.resize(in.getGraphs().size());
      for (unsigned i = 0; i < in.getGraphs().size(); ++i)
        ACTORFLOW_RETURN_IF_ERROR(
          net::detail::decode_graph(in.getGraphs()[i], &x.graphs[i]));
      return core::status::ok();
    });
}

std::string to_string(const partition_set& x) {
  return core::detail::str_cat("partition_set(", x.graphs.size(), " graphs)");
}

// -- step_stats ---------------------------------------------------------------

namespace {

void encode_stats(const step_stats& x, schema::StepStats::Builder out) {
  auto devices = out.initDevices(static_cast<unsigned>(x.devices.size()));
  for (unsigned i = 0; i < devices.size(); ++i) {
    const auto& d = x.devices[i];
    auto dv = devices[i];
    dv.setDevice(d.device);
    dv.setWorker(d.worker);
    dv.setBytesInUse(d.bytes_in_use);
    dv.setPeakBytes(d.peak_bytes);
    auto nodes = dv.initNodes(static_cast<unsigned>(d.nodes.size()));
    for (unsigned k = 0; k < nodes.size(); ++k) {
      const auto& n = d.nodes[k];
      auto nv = nodes[k];
      nv.setNode(n.node);
      nv.setOp(n.op);
      nv.setFrameName(n.frame_name);
      nv.setFrame(n.frame);
      nv.setIter(n.iter);
      nv.setStartMicros(n.start_us);
      nv.setEndMicros(n.end_us);
      nv.setOutputBytes(n.output_bytes);
      nv.setTensorName(n.tensor_name);
    }
  }
  out.setPartitionMessages(x.partition_messages);
  out.setPartitionBytes(x.partition_bytes);
  out.setProcessMessages(x.process_messages);
  out.setProcessBytes(x.process_bytes);
}

void decode_stats(schema::StepStats::Reader in, step_stats* out) {
  out->devices.clear();
  out->devices.reserve(in.getDevices().size());
  for (auto dv : in.getDevices()) {
    auto& d = out->devices.emplace_back();
    d.device = dv.getDevice();
    d.worker = dv.getWorker();
    d.bytes_in_use = dv.getBytesInUse();
    d.peak_bytes = dv.getPeakBytes();
    d.nodes.reserve(dv.getNodes().size());
    for (auto nv : dv.getNodes())
      d.nodes.push_back(node_exec_stats{
        nv.getNode(), nv.getOp(), nv.getFrameName(), nv.getFrame(),
        nv.getIter(), nv.getStartMicros(), nv.getEndMicros(),
        nv.getOutputBytes(), nv.getTensorName()});
  }
  out->partition_messages = in.getPartitionMessages();
  out->partition_bytes = in.getPartitionBytes();
  out->process_messages = in.getProcessMessages();
  out->process_bytes = in.getProcessBytes();
}

} // namespace

// -- run_step_msg -------------------------------------------------------------

caf::error inspect(caf::serializer& f, run_step_msg& x) {
  return save<schema::RunStep>(
    f, "run step",
    [&](schema::RunStep::Builder out, capnp::Orphanage& orphanage) {
      out.setHandle(x.handle);
      out.setStep(x.step);
      out.setTrace(x.trace);
      encode_indexed_list(x.feeds,
                          out.initFeeds(static_cast<unsigned>(x.feeds.size())),
                          orphanage);
      return caf::error{};
    });
}

caf::error inspect(caf::deserializer& f, run_step_msg& x) {
  return load<schema::RunStep>(
    f, "run step", x, [&](schema::RunStep::Reader in) {
      x.handle = in.getHandle();
      x.step = in.getStep();
      x.trace = in.getTrace();
      return decode_indexed_list(in.getFeeds(), &x.feeds);
    });
}

std::string to_string(const run_step_msg& x) {
  return core::detail::str_cat("run_step(handle ", x.handle, ", step ", x.step,
                               ", ", x.feeds.size(), " feeds)");
}

// -- step_report --------------------------------------------------------------

caf::error inspect(caf::serializer& f, step_report& x) {
  return save<schema::StepReport>(
    f, "step report",
    [&](schema::StepReport::Builder out, capnp::Orphanage& orphanage) {
      out.setStep(x.step);
      encode_indexed_list(
        x.fetches, out.initFetches(static_cast<unsigned>(x.fetches.size())),
        orphanage);
      encode_status(x.error, out.initStatus());
      if (!x.stats.devices.empty())
        encode_stats(x.stats, out.initStats());
      return caf::error{};
    });
}

caf::error inspect(caf::deserializer& f, step_report& x) {
  return load<schema::StepReport>(
    f, "step report", x, [&](schema::StepReport::Reader in) {
      x.step = in.getStep();
      ACTORFLOW_RETURN_IF_ERROR(
        decode_indexed_list(in.getFetches(), &x.fetches));
      if (in.hasStats())
        decode_stats(in.getStats(), &x.stats);
      return decode_status(in.getStatus(), &x.error);
    });
}

std::string to_string(const step_report& x) {
  return core::detail::str_cat("step_report(step ", x.step, ", ",
                               x.fetches.size(), " fetches, ",
                               x.error.to_string(), ")");
}

} // namespace actorflow::actors
