#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/core/dtype.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/kernel_construction.hpp"

namespace actorflow::ops {

/// Which inputs and outputs of a kernel live in host memory on a device
/// with memory of its own (TensorFlow's `HostMemory`): shapes, axes, loop
/// predicates, int32 values. The rest live in device memory. On a CPU
/// every tensor is in host memory and this is ignored.
struct memory_spec {
  std::vector<int> host_inputs;
  std::vector<int> host_outputs;
  /// Every input and output in host memory (a kernel that computes on the
  /// host though placed on a GPU, as TensorFlow's int32 kernels do).
  bool all_host = false;

  bool input_on_host(size_t i) const noexcept;
  bool output_on_host(size_t i) const noexcept;
};

/// Kernel factories keyed by (op, device type, dtype). An engine owns one.
///
/// The dtype of a node is the value of its kernel's type attr (usually "T");
/// a registration with dtype `invalid` serves every dtype.
class kernel_registry {
public:
  using factory = std::function<core::status(kernel_construction&,
                                             std::unique_ptr<kernel>*)>;

  /// Registers `make` for `op` on `device_type` when the node's attr
  /// `type_attr` equals `type`.
  void add(const std::string& op, const std::string& device_type,
           core::dtype type, factory make, std::string type_attr = "T",
           memory_spec memory = {});

  /// Registers `K<T>` for each `T` in `Ts`: `K<T>` is constructible from a
  /// `kernel_construction&` and reports attr errors by failing `status()`.
  template <template <class> class K, class... Ts>
  void add_typed(const std::string& op, const std::string& device_type,
                 const std::string& type_attr = "T",
                 const memory_spec& memory = {}) {
    (add(op, device_type, core::dtype_v<Ts>, &make_kernel<K<Ts>>, type_attr,
         memory),
     ...);
  }

  /// Registers one kernel class for every dtype.
  template <class K>
  void add_any(const std::string& op, const std::string& device_type,
               const memory_spec& memory = {}) {
    add(op, device_type, core::dtype::invalid, &make_kernel<K>, "", memory);
  }

  /// Returns whether any kernel for `op` on `device_type` exists.
  bool supports(const std::string& op, const std::string& device_type) const;

  /// Returns whether a kernel for `node` (its op and dtype attr) exists on
  /// `device_type`.
  bool supports(const core::node_def& node,
                const std::string& device_type) const;

  /// Returns the memory spec of the kernel for `node` on `device_type`;
  /// all in host memory when there is none.
  memory_spec memory(const core::node_def& node,
                     const std::string& device_type) const;

  /// Returns the (op, dtype) pairs registered for `device_type`, dtype
  /// `invalid` for a kernel of every dtype; for tests that check every
  /// kernel of a device has a case.
  std::vector<std::pair<std::string, core::dtype>>
  registered(const std::string& device_type) const;

  /// Builds the kernel for `ctx.node()` on `ctx.device()`; `not_found` when
  /// no registration matches.
  core::status create(kernel_construction& ctx,
                      std::unique_ptr<kernel>* out) const;

  /// Builds `K` from `ctx`; its constructor may fail through `ctx`-style
  /// status member `init_status()`.
  template <class K>
  static core::status make_kernel(kernel_construction& ctx,
                                  std::unique_ptr<kernel>* out) {
    auto k = std::make_unique<K>(ctx);
    ACTORFLOW_RETURN_IF_ERROR(k->init_status());
    *out = std::move(k);
    return core::status::ok();
  }

private:
  struct registration {
    core::dtype type;
    std::string type_attr;
    factory make;
    memory_spec memory;
  };

  /// The registration that serves `node` on `device_type`, or nullptr.
  const registration* find(const core::node_def& node,
                           const std::string& device_type) const;
  std::map<std::pair<std::string, std::string>, std::vector<registration>>
    kernels_;
};

/// A convenience base for kernels whose constructor may fail.
class basic_kernel : public kernel {
public:
  const core::status& init_status() const noexcept {
    return init_;
  }

protected:
  core::status init_;
};

/// A `basic_kernel` that does little work per call (TF:
/// `IsExpensive() == false`).
class cheap_kernel : public basic_kernel {
public:
  bool is_expensive() const noexcept override {
    return false;
  }
};

} // namespace actorflow::ops
