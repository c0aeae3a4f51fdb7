#include "actorflow/core/status.hpp"

#include <gtest/gtest.h>

#include <caf/sec.hpp>

#include "actorflow/core/caf_error.hpp"

using namespace actorflow::core;

TEST(status, ok_by_default) {
  status st;
  EXPECT_TRUE(st.is_ok());
  EXPECT_EQ(st.code(), errc::ok);
  EXPECT_EQ(st.to_string(), "ok");
  EXPECT_TRUE(status::ok().message().empty());
}

TEST(status, factories_concatenate_and_keep_the_code) {
  auto st = invalid_argument_error("expected rank ", 2, ", got ", int64_t{3});
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_EQ(st.message(), "expected rank 2, got 3");
  EXPECT_EQ(data_loss_error("x").code(), errc::data_loss);
  EXPECT_EQ(to_string(errc::resource_exhausted), "resource_exhausted");
}

TEST(status, context_names_node_op_and_device_innermost_first) {
  auto st = not_found_error("no kernel")
              .with_context("layer1/mm", "MatMul", "/device:cpu:1");
  EXPECT_EQ(st.node(), "layer1/mm");
  EXPECT_EQ(st.op(), "MatMul");
  EXPECT_EQ(st.device(), "/device:cpu:1");
  auto outer = st.with_context("other", "Add", "x");
  EXPECT_EQ(outer.node(), "layer1/mm");
  EXPECT_EQ(st.to_string(), "not_found: no kernel {{node layer1/mm}} {{op "
                            "MatMul}} {{device /device:cpu:1}}");
  EXPECT_TRUE(status::ok().with_context("a", "b").is_ok());
}

TEST(status, prefixed_keeps_code_and_context) {
  auto st = invalid_argument_error("bad shape").with_context("x", "Add");
  auto p = st.prefixed("feed x");
  EXPECT_EQ(p.code(), errc::invalid_argument);
  EXPECT_EQ(p.message(), "feed x: bad shape");
  EXPECT_EQ(p.node(), "x");
  EXPECT_EQ(st.message(), "bad shape");
  EXPECT_TRUE(status::ok().prefixed("a").is_ok());
}

TEST(status, round_trips_through_caf_error) {
  auto st
    = failed_precondition_error("uninitialized value W")
        .with_context("W", "VariableV2", "/job:localhost/task:0/device:cpu:0");
  auto err = to_error(st);
  EXPECT_EQ(err.category(), error_category);
  EXPECT_EQ(err.code(), static_cast<uint8_t>(errc::failed_precondition));
  auto back = from_error(err);
  EXPECT_EQ(back, st);
  EXPECT_FALSE(to_error(status::ok()));
  EXPECT_TRUE(from_error(caf::error{}).is_ok());
}

TEST(status, caf_system_errors_map_to_canonical_codes) {
  auto timeout = from_error(caf::make_error(caf::sec::request_timeout));
  EXPECT_EQ(timeout.code(), errc::deadline_exceeded);
  auto other = from_error(caf::make_error(caf::sec::unexpected_message));
  EXPECT_EQ(other.code(), errc::internal);
}
