#include "actorflow/core/tensor.hpp"

#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

#include "actorflow/core/cpu_allocator.hpp"

using namespace actorflow::core;

TEST(tensor, every_dtype_allocates_and_holds_values) {
  auto alloc = std::make_shared<cpu_allocator>();
  for (size_t i = 1; i < num_dtypes; ++i) {
    auto type = static_cast<dtype>(i);
    tensor t;
    ASSERT_TRUE(tensor::make(alloc, type, {2, 3}, &t).is_ok());
    EXPECT_EQ(t.dtype(), type);
    EXPECT_EQ(t.num_elements(), 6);
    EXPECT_EQ(t.bytes(), 6 * size_of(type));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
    visit_dtype(type, [&](auto tag) {
      using T = decltype(tag);
      T* p = t.mutable_data<T>();
      for (int k = 0; k < 6; ++k) {
        if constexpr (std::is_same_v<T, std::string>)
          p[k] = "s" + std::to_string(k);
        else if constexpr (std::is_same_v<T, bool>)
          p[k] = k % 2 == 0;
        else
          p[k] = static_cast<T>(k);
      }
      tensor copy;
      ASSERT_TRUE(t.deep_copy(&copy).is_ok());
      EXPECT_FALSE(copy.shares_buffer_with(t));
      EXPECT_TRUE(copy.equals(t)) << to_string(type);
      if constexpr (std::is_same_v<T, std::string>) {
        EXPECT_EQ(copy.data<std::string>()[5], "s5");
      } else if constexpr (!std::is_same_v<T, bool>) {
        EXPECT_EQ(copy.data<T>()[5], static_cast<T>(5)) << to_string(type);
      }
    });
  }
}

TEST(tensor, allocator_tracks_bytes_in_use_and_peak) {
  auto alloc = std::make_shared<cpu_allocator>();
  {
    tensor a, b;
    ASSERT_TRUE(tensor::make(alloc, dtype::float32, {1000}, &a).is_ok());
    ASSERT_TRUE(tensor::make(alloc, dtype::float64, {10}, &b).is_ok());
    EXPECT_EQ(alloc->stats().bytes_in_use, 4080);
    b = tensor{};
    EXPECT_EQ(alloc->stats().bytes_in_use, 4000);
  }
  EXPECT_EQ(alloc->stats().bytes_in_use, 0);
  EXPECT_EQ(alloc->stats().peak_bytes_in_use, 4080);
  EXPECT_EQ(alloc->stats().num_allocs, 2);
}

TEST(tensor, cpu_allocator_reuses_small_blocks_and_keeps_them_aligned) {
  cpu_allocator alloc;
  // A freed small block comes back for the next request of its size class.
  auto* a = alloc.allocate(100);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % cpu_allocator::alignment, 0u);
  alloc.deallocate(a, 100);
  auto* b = alloc.allocate(128); // the same 128-byte class
  EXPECT_EQ(b, a);
  auto* c = alloc.allocate(100); // none left in the class: a new block
  EXPECT_NE(c, b);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c) % cpu_allocator::alignment, 0u);
  // Blocks are written through and the counters see every block.
  std::memset(b, 0xAB, 128);
  std::memset(c, 0xCD, 100);
  EXPECT_EQ(static_cast<unsigned char*>(b)[127], 0xAB);
  EXPECT_EQ(alloc.stats().bytes_in_use, 228);
  EXPECT_EQ(alloc.stats().num_allocs, 3);
  alloc.deallocate(b, 128);
  alloc.deallocate(c, 100);
  EXPECT_EQ(alloc.stats().bytes_in_use, 0);
  // Large blocks are kept by size, within a bound on their bytes.
  auto* big = alloc.allocate(1 << 20);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big) % cpu_allocator::alignment, 0u);
  alloc.deallocate(big, 1 << 20);
  EXPECT_EQ(alloc.large_cached_bytes(), size_t{1} << 20);
  auto* other = alloc.allocate((1 << 20) + 4096); // another size: new block
  EXPECT_NE(other, big);
  auto* again = alloc.allocate(1 << 20);
  EXPECT_EQ(again, big);
  EXPECT_EQ(alloc.large_cached_bytes(), 0u);
  alloc.deallocate(again, 1 << 20);
  alloc.deallocate(other, (1 << 20) + 4096);
  EXPECT_EQ(alloc.large_cached_bytes(), size_t{2} * (1 << 20) + 4096);
  // A huge block (2 MiB pages) comes back for any request rounding to it.
  auto* huge = alloc.allocate(size_t{5} << 20);
  alloc.deallocate(huge, size_t{5} << 20);
  EXPECT_EQ(alloc.allocate((size_t{5} << 20) + 100), huge);
  alloc.deallocate(huge, (size_t{5} << 20) + 100);
  // Past the bound a freed block is not kept.
  auto* too_many = alloc.allocate(cpu_allocator::max_large_cached_bytes);
  ASSERT_NE(too_many, nullptr);
  auto kept = alloc.large_cached_bytes();
  alloc.deallocate(too_many, cpu_allocator::max_large_cached_bytes);
  EXPECT_EQ(alloc.large_cached_bytes(), kept);
  EXPECT_EQ(alloc.stats().bytes_in_use, 0);
  // Zero bytes still gives a block.
  auto* empty = alloc.allocate(0);
  EXPECT_NE(empty, nullptr);
  alloc.deallocate(empty, 0);
}

TEST(tensor, copies_share_the_buffer_and_reshape_views_it) {
  auto t = tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(t.unique());
  tensor u = t;
  EXPECT_FALSE(t.unique());
  EXPECT_TRUE(u.shares_buffer_with(t));
  tensor r;
  ASSERT_TRUE(t.reshaped({3, 2}, &r).is_ok());
  EXPECT_TRUE(r.shares_buffer_with(t));
  EXPECT_EQ(r.matrix<float>()(2, 1), 6.0f);
  EXPECT_EQ(t.matrix<float>()(1, 0), 4.0f);
  EXPECT_EQ(t.flat<float>()(4), 5.0f);
  EXPECT_EQ(t.reshaped({4}, &r).code(), errc::invalid_argument);
  EXPECT_THROW(tensor::from_vector<float>({2, 2}, {1, 2, 3}),
               std::invalid_argument);
}

TEST(tensor, borrowed_memory_is_shared_kept_alive_and_never_written) {
  alignas(16) float data[6] = {1, 2, 3, 4, 5, 6};
  auto owner = std::make_shared<int>(0);
  std::weak_ptr<int> watch = owner;
  tensor t;
  ASSERT_TRUE(
    tensor::borrow(dtype::float32, {2, 3}, data, std::move(owner), &t).is_ok());
  EXPECT_EQ(t.raw_data(), data);
  EXPECT_EQ(t.matrix<float>()(1, 2), 6.0f);
  // The only handle, yet not unique: kernels copy before writing.
  EXPECT_FALSE(t.unique());
  tensor r;
  ASSERT_TRUE(t.reshaped({6}, &r).is_ok());
  EXPECT_FALSE(r.unique());
  t = tensor{};
  EXPECT_FALSE(watch.expired()); // the view keeps the owner
  r = tensor{};
  EXPECT_TRUE(watch.expired());
  // What cannot be borrowed.
  auto keep = std::make_shared<int>(0);
  EXPECT_EQ(tensor::borrow(dtype::float32, {2}, data + 1, keep, &t).code(),
            errc::invalid_argument); // 4 bytes past alignment
  EXPECT_EQ(tensor::borrow(dtype::string, {1}, data, keep, &t).code(),
            errc::invalid_argument);
  EXPECT_EQ(tensor::borrow(dtype::float32, {-1}, data, keep, &t).code(),
            errc::invalid_argument);
  EXPECT_EQ(tensor::borrow(dtype::float32, {1}, data, nullptr, &t).code(),
            errc::invalid_argument);
}

TEST(tensor, a_small_host_tensor_keeps_its_elements_in_its_header) {
  // 16 floats (tensor::inline_bytes) take no block from the allocator but
  // count as its bytes; 17 take a block. Either way 64-byte aligned, and a
  // reshape keeps the elements alive after the tensor it views is gone.
  auto alloc = std::make_shared<cpu_allocator>();
  tensor small, large;
  ASSERT_TRUE(tensor::make(alloc, dtype::float32, {4, 4}, &small).is_ok());
  ASSERT_TRUE(tensor::make(alloc, dtype::float32, {17}, &large).is_ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small.raw_data()) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large.raw_data()) % 64, 0u);
  EXPECT_EQ(alloc->stats().bytes_in_use, 64 + 68);
  EXPECT_EQ(alloc->stats().num_allocs, 2);
  for (int k = 0; k < 16; ++k)
    small.mutable_data<float>()[k] = static_cast<float>(k);
  tensor row;
  ASSERT_TRUE(small.reshaped({16}, &row).is_ok());
  EXPECT_FALSE(row.unique());
  small = tensor{};
  EXPECT_TRUE(row.unique());
  EXPECT_EQ(row.flat<float>()(15), 15.0f);
  EXPECT_EQ(alloc->stats().bytes_in_use, 64 + 68);
  row = tensor{};
  large = tensor{};
  EXPECT_EQ(alloc->stats().bytes_in_use, 0);
}

TEST(tensor, a_small_tensor_of_other_memory_takes_a_block) {
  // An allocator that does not allow it (device or pinned memory) hands
  // out every tensor's elements, however small.
  struct block_counter : allocator {
    std::string name() const override {
      return "blocks";
    }
    memory_type memory() const noexcept override {
      return memory_type::device;
    }
    void* allocate(size_t bytes) override {
      ++blocks;
      return inner.allocate(bytes);
    }
    void deallocate(void* ptr, size_t bytes) noexcept override {
      --blocks;
      inner.deallocate(ptr, bytes);
    }
    cpu_allocator inner;
    int blocks = 0;
  };
  auto alloc = std::make_shared<block_counter>();
  {
    tensor t;
    ASSERT_TRUE(tensor::make(alloc, dtype::float32, {}, &t).is_ok());
    EXPECT_EQ(alloc->blocks, 1);
    EXPECT_EQ(t.memory(), memory_type::device);
  }
  EXPECT_EQ(alloc->blocks, 0);
}

TEST(tensor, make_rejects_bad_requests) {
  tensor t;
  EXPECT_EQ(tensor::make(host_allocator(), dtype::float32, {-1, 2}, &t).code(),
            errc::invalid_argument);
  EXPECT_EQ(tensor::make(host_allocator(), dtype::invalid, {2}, &t).code(),
            errc::invalid_argument);
}

TEST(tensor, scalars_and_debug_strings) {
  auto s = tensor::scalar<int32_t>(42);
  EXPECT_EQ(s.shape().rank(), 0);
  EXPECT_EQ(s.scalar_value<int32_t>(), 42);
  EXPECT_EQ(s.debug_string(), "tensor<int32, []>[42]");
  auto h = tensor::scalar(Eigen::half(1.5f));
  EXPECT_EQ(h.debug_string(), "tensor<float16, []>[1.5]");
  EXPECT_EQ(tensor{}.debug_string(), "tensor<empty>");
}
