// CollectiveAllReduce: hands its input to the engine's collective executor
// and completes when the members' sum comes back.

#include "actorflow/ops/collective.hpp"
#include "actorflow/ops/resource_manager.hpp"
#include "kernels.hpp"

namespace actorflow::ops::cpu {

namespace {

class all_reduce_kernel : public basic_kernel {
public:
  explicit all_reduce_kernel(kernel_construction& ctx)
    : resources_(ctx.resources()) {
    init_ = ctx.get_attr("members", &spec_.members);
    if (init_.is_ok())
      init_ = ctx.get_attr("instance_key", &spec_.instance_key);
    if (!init_.is_ok())
      return;
    auto reduction = ctx.attr_or("reduction", std::string{"sum"});
    if (reduction != "sum" && reduction != "mean") {
      init_ = core::invalid_argument_error(
        "reduction is 'sum' or 'mean', not '", reduction, "'");
      return;
    }
    spec_.mean = reduction == "mean";
    // This member's rank: where its device is among the members.
    const auto& self = ctx.device().parsed_name();
    spec_.rank = -1;
    for (size_t i = 0; i < spec_.members.size(); ++i) {
      auto m = core::device_name::parse(spec_.members[i]);
      if (!m || !m->job || !m->task || !m->type || !m->id) {
        init_ = core::invalid_argument_error(
          "member '", spec_.members[i],
          "' is not a full device name (/job:J/task:T/device:cpu:N)");
        return;
      }
      if (m->matches(self)) {
        if (spec_.rank >= 0) {
          init_ = core::invalid_argument_error("device ", ctx.device().name(),
                                               " is a member twice");
          return;
        }
        spec_.rank = static_cast<int>(i);
      }
    }
    if (spec_.rank < 0)
      init_
        = core::invalid_argument_error("the node runs on ", ctx.device().name(),
                                       ", which is not one of its members");
  }

  bool is_async() const noexcept override {
    return true;
  }

  bool is_expensive() const noexcept override {
    return false;
  }

  void compute(kernel_context& ctx) override {
    ctx.fail(core::internal_error("collectives run asynchronously"));
  }

  void compute_async(kernel_context& ctx, done_callback done) override {
    auto executor = resources_.collectives();
    if (!executor) {
      ctx.fail(core::failed_precondition_error(
        "this engine runs no collectives (no collective executor)"));
      done();
      return;
    }
    executor->all_reduce(
      spec_, ctx.take_input(0), ctx.step_id(),
      [&ctx, done = std::move(done)](core::status st, core::tensor result) {
        if (st.is_ok())
          ctx.set_output(0, std::move(result));
        else
          ctx.fail(std::move(st));
        done();
      });
  }

private:
  resource_manager& resources_;
  collective_spec spec_;
};

} // namespace

void register_collective_kernels(kernel_registry& r) {
  r.add_any<all_reduce_kernel>("CollectiveAllReduce", device_type);
}

} // namespace actorflow::ops::cpu
