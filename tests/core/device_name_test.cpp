#include "actorflow/core/device_name.hpp"

#include <gtest/gtest.h>

using namespace actorflow::core;

TEST(device_name, full_and_partial_forms) {
  auto full = device_name::parse("/job:worker/task:3/device:CPU:1");
  ASSERT_TRUE(full);
  EXPECT_EQ(*full->job, "worker");
  EXPECT_EQ(*full->task, 3);
  EXPECT_EQ(*full->type, "cpu");
  EXPECT_EQ(*full->id, 1);
  EXPECT_EQ(full->to_string(), "/job:worker/task:3/device:cpu:1");
  auto short_form = device_name::parse("cpu:1");
  ASSERT_TRUE(short_form);
  EXPECT_FALSE(short_form->job);
  EXPECT_TRUE(short_form->matches(*full));
  EXPECT_FALSE(device_name::parse("cpu:0")->matches(*full));
  EXPECT_TRUE(device_name::parse("/job:worker")->matches(*full));
  EXPECT_TRUE(device_name::parse("")->matches(*full));
  EXPECT_TRUE(device_name::parse("/cpu:*")->matches(*full));
}

TEST(device_name, malformed_names_are_rejected) {
  for (auto bad : {"cpu", "cpu:x", "/job:", "/task:-1", "//cpu:0",
                   "/device:cpu", "cpu:0/gpu:1", "c-pu:0"})
    EXPECT_FALSE(device_name::parse(bad)) << bad;
}
