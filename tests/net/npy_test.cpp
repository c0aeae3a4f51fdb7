#include "actorflow/interop/npy.hpp"

#include <complex>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "common/golden.hpp"

using namespace actorflow;

namespace {

std::string golden_path(const std::string& name) {
  return std::string{ACTORFLOW_GOLDEN_DIR} + "/npy/" + name + ".npy";
}

std::string file_bytes(const std::string& path) {
  std::ifstream f{path, std::ios::binary};
  return {std::istreambuf_iterator<char>{f}, std::istreambuf_iterator<char>{}};
}

bool same_bits(const core::tensor& x, const core::tensor& y) {
  return x.dtype() == y.dtype() && x.shape() == y.shape()
         && x.bytes() == y.bytes()
         && (x.bytes() == 0
             || std::memcmp(x.raw_data(), y.raw_data(), x.bytes()) == 0);
}

} // namespace

// Every file numpy wrote reads as the values numpy printed, and writing
// the tensor again gives numpy's bytes.
TEST(npy, reads_what_numpy_writes_and_writes_the_same_bytes) {
  auto golden = test::load_golden("npy_values.txt");
  ASSERT_EQ(golden.size(), 6u);
  for (const auto& [name, want] : golden) {
    SCOPED_TRACE(name);
    core::tensor t;
    ASSERT_TRUE(interop::load_npy(golden_path(name), &t).is_ok());
    EXPECT_TRUE(same_bits(t, want)) << t.shape().to_string();
    std::string bytes;
    ASSERT_TRUE(interop::encode_npy(t, &bytes).is_ok());
    EXPECT_EQ(bytes, file_bytes(golden_path(name)));
  }
}

TEST(npy, complex_and_format_2) {
  core::tensor c;
  ASSERT_TRUE(interop::load_npy(golden_path("c64_2"), &c).is_ok());
  EXPECT_EQ(c.dtype(), core::dtype::complex64);
  EXPECT_EQ(c.shape(), (core::shape{2}));
  std::string bytes;
  ASSERT_TRUE(interop::encode_npy(c, &bytes).is_ok());
  EXPECT_EQ(bytes, file_bytes(golden_path("c64_2")));
  core::tensor v1, v2;
  ASSERT_TRUE(interop::load_npy(golden_path("f32_2x3"), &v1).is_ok());
  ASSERT_TRUE(interop::load_npy(golden_path("f32_v2"), &v2).is_ok());
  EXPECT_TRUE(same_bits(v1, v2));
}

TEST(npy, save_and_load_round_trip) {
  auto t = core::tensor::from_vector<int32_t>({2, 2}, {1, -2, 3, -4});
  auto path = ::testing::TempDir() + "/npy_test_round_trip.npy";
  ASSERT_TRUE(interop::save_npy(t, path).is_ok());
  core::tensor back;
  ASSERT_TRUE(interop::load_npy(path, &back).is_ok());
  EXPECT_TRUE(same_bits(t, back));
  std::remove(path.c_str());
}

// Each broken file is refused with a message that says what is wrong.
TEST(npy, refuses_what_it_cannot_read) {
  struct bad {
    const char* name;
    const char* says;
  };
  for (auto [name, says] : {bad{"fortran", "Fortran order"},
                            bad{"big_endian", "'>f4' is not supported"},
                            bad{"unicode", "'<U3' is not supported"},
                            bad{"truncated", "does not fit the shape"},
                            bad{"bad_magic", "not a .npy file"},
                            bad{"header_past_end", "runs past the end"}}) {
    SCOPED_TRACE(name);
    core::tensor t;
    auto st = interop::load_npy(golden_path(name), &t);
    EXPECT_EQ(st.code(), core::errc::invalid_argument);
    EXPECT_NE(st.message().find(says), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(name), std::string::npos) << st.message();
  }
  core::tensor t;
  EXPECT_EQ(interop::load_npy("/nonexistent/x.npy", &t).code(),
            core::errc::not_found);
}

TEST(npy, refuses_malformed_headers) {
  auto with_header = [](std::string dict) {
    std::string b = "\x93NUMPY\x01";
    b += '\0';
    b += static_cast<char>(dict.size());
    b += '\0';
    return b + dict;
  };
  for (const char* dict :
       {"{'descr': '<f4', 'fortran_order': False}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
        "{'descr': '<f4', 'fortran_order': maybe, 'shape': ()}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999"
        "999,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, "
        "4294967296, 4294967296)}",
        // No bytes, yet no tensor: found by npy_fuzzer (it threw).
        "{'descr': '<f4', 'fortran_order': False, 'shape': (9551615, "
        "1000000000010, 0, 90700001987469081)}",
        "{'descr: '<f4', 'fortran_order': False, 'shape': ()}",
        "['descr', '<f4']"}) {
    SCOPED_TRACE(dict);
    core::tensor t;
    EXPECT_EQ(interop::decode_npy(with_header(dict), &t).code(),
              core::errc::invalid_argument);
  }
  std::string bytes;
  auto st = interop::encode_npy(core::tensor{core::dtype::string, {1}}, &bytes);
  EXPECT_EQ(st.code(), core::errc::unimplemented);
}
