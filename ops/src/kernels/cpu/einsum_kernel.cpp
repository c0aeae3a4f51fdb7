// Einsum on the CPU (what Keras' MultiHeadAttention and EinsumDense write):
// a matrix product per batch -- oneDNN's for float32, OpenBLAS's for
// float64 -- read and written in place where the operands and the output
// lie as strided matrices (MultiHeadAttention's all do); otherwise each
// operand gathered into [batch, free, contracted] order (labels only it
// has summed on the way, size-1 broadcast dimensions repeated) and the
// result put into the output's order.

#include "../../einsum_equation.hpp"
#include "blas.hpp"
#include "kernels.hpp"
#include "onednn_matmul.hpp"
#include "parallel_split.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <type_traits>

namespace actorflow::ops::cpu {

namespace {

using detail::einsum_equation;

/// How one operand is read in a chosen order of labels: the size of each
/// label and its stride in the operand (0 where the operand lacks it or
/// broadcasts it).
struct view {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
};

/// The view of an operand with `labels` (its dimensions `dims`) in the
/// order `order`, each label of size `size.at(label)`.
view view_of(const std::string& labels, const core::shape& dims,
             const std::string& order, const std::map<char, int64_t>& size) {
  std::vector<int64_t> own(labels.size(), 1);
  for (size_t d = labels.size(); d-- > 1;)
    own[d - 1] = own[d] * dims.dim(static_cast<int>(d));
  view v;
  for (char c : order) {
    auto n = size.at(c);
    auto at = labels.find(c);
    v.sizes.push_back(n);
    v.strides.push_back(
      at == std::string::npos || dims.dim(static_cast<int>(at)) != n ? 0
                                                                     : own[at]);
  }
  return v;
}

/// Writes to `dst`, in row-major order over the first `kept` dimensions of
/// `v`, the sum over its other dimensions of `src` read through `v`.
template <class T>
void gather(const T* src, const view& v, size_t kept, T* dst) {
  auto rank = v.sizes.size();
  auto product = [&](size_t from, size_t to) {
    int64_t n = 1;
    for (size_t d = from; d < to; ++d)
      n *= v.sizes[d];
    return n;
  };
  auto outer = product(0, kept), inner = product(kept, rank);
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;
  // Steps the odometer of dimensions [from, to) once; returns the offset.
  auto step = [&](size_t from, size_t to) {
    for (size_t d = to; d-- > from;) {
      offset += v.strides[d];
      if (++index[d] < v.sizes[d])
        return;
      offset -= v.strides[d] * v.sizes[d];
      index[d] = 0;
    }
  };
  for (int64_t i = 0; i < outer; ++i) {
    T sum = T(0);
    for (int64_t j = 0; j < inner; ++j) {
      sum += src[offset];
      step(kept, rank);
    }
    dst[i] = sum;
    step(0, kept);
  }
}

/// Whether reading through `v` is reading the operand as it lies.
bool contiguous(const view& v) {
  int64_t expect = 1;
  for (size_t d = v.sizes.size(); d-- > 0;) {
    if (v.sizes[d] != 1 && v.strides[d] != expect)
      return false;
    expect *= v.sizes[d];
  }
  return true;
}

/// `src` read through `v` (nothing summed), or `src` itself when that is
/// how it lies.
template <class T>
const T* arranged(const T* src, const view& v, std::vector<T>* buffer) {
  if (contiguous(v))
    return src;
  int64_t n = 1;
  for (auto s : v.sizes)
    n *= s;
  buffer->resize(static_cast<size_t>(n));
  gather(src, v, v.sizes.size(), buffer->data());
  return buffer->data();
}

/// A group of a view's dimensions read as one: its size and stride (-1:
/// the group does not lie as one dimension).
struct axis {
  int64_t size = 1;
  int64_t stride = 0;
};

/// Dimensions [from, to) of `v` as one axis, where they lie so (none of
/// them broadcast).
axis merged(const view& v, size_t from, size_t to) {
  axis a;
  for (size_t d = to; d-- > from;) {
    if (v.sizes[d] == 1)
      continue;
    if (v.strides[d] == 0 || (a.size > 1 && v.strides[d] != a.stride * a.size))
      return {1, -1};
    if (a.size == 1)
      a.stride = v.strides[d];
    a.size *= v.sizes[d];
  }
  return a;
}

/// How a BLAS reads a [rows, cols] matrix: as it lies or transposed, with
/// which leading dimension; `ok` is false when it cannot.
struct matrix_layout {
  bool ok = false;
  bool trans = false;
  int64_t ld = 0;
};

matrix_layout layout_of(axis rows, axis cols) {
  if (rows.stride < 0 || cols.stride < 0)
    return {};
  if (cols.size == 1 || cols.stride == 1) {
    auto ld = rows.size == 1 ? cols.size : rows.stride;
    if (ld >= cols.size)
      return {true, false, ld};
  }
  if (rows.size == 1 || rows.stride == 1) {
    auto ld = cols.size == 1 ? rows.size : cols.stride;
    if (ld >= rows.size)
      return {true, true, ld};
  }
  return {};
}

/// The product of the sizes of `labels`.
int64_t volume(const std::string& labels, const std::map<char, int64_t>& size) {
  int64_t n = 1;
  for (char c : labels)
    n *= size.at(c);
  return n;
}

/// Multiply-adds from which one product is worth cutting over the pool by
/// itself (rather than a batch of products spread a product to a thread).
constexpr int64_t whole_product = int64_t{1} << 22;

template <class T>
class einsum_kernel : public basic_kernel {
public:
  explicit einsum_kernel(kernel_construction& ctx) {
    init_ = ctx.get_attr("equation", &equation_);
  }

  void compute(kernel_context& ctx) override {
    std::vector<int> ranks;
    std::vector<core::shape> shapes;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      shapes.push_back(ctx.input(i).shape());
      ranks.push_back(shapes.back().rank());
    }
    einsum_equation eq;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             einsum_equation::parse(equation_, ranks, &eq));
    ACTORFLOW_OP_REQUIRES(
      ctx, eq.inputs.size() <= 2,
      core::unimplemented_error("Einsum of ", eq.inputs.size(),
                                " operands; actorflow takes one or two"));
    core::shape out_shape;
    ACTORFLOW_OP_REQUIRES_OK(ctx, eq.output_shape(shapes, &out_shape));
    std::map<char, int64_t> size;
    for (size_t i = 0; i < eq.inputs.size(); ++i)
      for (size_t d = 0; d < eq.inputs[i].size(); ++d) {
        auto& n = size[eq.inputs[i][d]];
        n = std::max(n, shapes[i].dim(static_cast<int>(d)));
      }
    for (size_t i = 0; i < eq.inputs.size(); ++i)
      for (size_t d = 0; d < eq.inputs[i].size(); ++d)
        if (shapes[i].dim(static_cast<int>(d)) == 0)
          size[eq.inputs[i][d]] = 0;
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &out));
    T* z = out->mutable_data<T>();
    if (out->num_elements() == 0)
      return;
    const auto& x = eq.inputs[0];
    if (eq.inputs.size() == 1) {
      // A transpose, summing what the output lacks.
      std::string order = eq.output;
      for (char c : x)
        if (eq.output.find(c) == std::string::npos)
          order += c;
      gather(ctx.input(0).data<T>(), view_of(x, shapes[0], order, size),
             eq.output.size(), z);
      return;
    }
    const auto& y = eq.inputs[1];
    auto has = [](const std::string& s, char c) {
      return s.find(c) != std::string::npos;
    };
    std::string batch, free_x, free_y, contracted, summed_x, summed_y;
    for (char c : eq.output)
      (has(x, c) && has(y, c) ? batch : has(x, c) ? free_x : free_y) += c;
    for (char c : x)
      if (!has(eq.output, c))
        (has(y, c) ? contracted : summed_x) += c;
    for (char c : y)
      if (!has(eq.output, c) && !has(x, c))
        summed_y += c;
    auto nb = volume(batch, size), k = volume(contracted, size);
    if (k == 0) {
      std::fill_n(z, out->num_elements(), T(0));
      return;
    }
    if (summed_x.empty() && summed_y.empty())
      for (size_t left : {0, 1}) {
        auto done
          = in_place(ctx, eq, shapes, size, batch, left == 0 ? free_x : free_y,
                     contracted, left == 0 ? free_y : free_x, left, z);
        if (done.has_value()) {
          ACTORFLOW_OP_REQUIRES_OK(ctx, *done);
          return;
        }
      }
    // The product comes out as [batch, left's free, right's free]: y on
    // the left when that is the output's order and x's is not.
    bool swap = batch + free_x + free_y != eq.output
                && batch + free_y + free_x == eq.output;
    size_t left = swap ? 1 : 0;
    const auto& free_l = swap ? free_y : free_x;
    const auto& free_r = swap ? free_x : free_y;
    auto m = volume(free_l, size), n = volume(free_r, size);
    // Left as [batch, m, k], right as [batch, k, n]: gathered (summing
    // the labels only it has) unless they lie so.
    std::vector<T> ls, rs, zs;
    auto operand
      = [&](size_t i, const std::string& order, std::vector<T>* buffer) {
          const auto& summed = i == 0 ? summed_x : summed_y;
          auto v = view_of(eq.inputs[i], shapes[i], order + summed, size);
          if (summed.empty())
            return arranged(ctx.input(i).data<T>(), v, buffer);
          buffer->resize(static_cast<size_t>(volume(order, size)));
          gather(ctx.input(i).data<T>(), v, order.size(), buffer->data());
          return static_cast<const T*>(buffer->data());
        };
    const T* a = operand(left, batch + free_l + contracted, &ls);
    const T* b = operand(1 - left, batch + contracted + free_r, &rs);
    // The product lands in z when its order is the output's.
    auto product_order = batch + free_l + free_r;
    T* c = z;
    if (product_order != eq.output) {
      zs.resize(static_cast<size_t>(nb * m * n));
      c = zs.data();
    }
    for (int64_t i = 0; i < nb; ++i)
      ACTORFLOW_OP_REQUIRES_OK(ctx, multiply(ctx, false, false, m, n, k,
                                             a + i * m * k, k, b + i * k * n, n,
                                             c + i * m * n, n));
    if (c != z) {
      std::vector<int64_t> dims;
      for (char ch : product_order)
        dims.push_back(size.at(ch));
      gather(static_cast<const T*>(c),
             view_of(product_order, core::shape{dims}, eq.output, size),
             eq.output.size(), z);
    }
  }

private:
  /// One matrix product, C = op(A) op(B), cut over the device's pool
  /// unless `split` is false.
  core::status multiply(kernel_context& ctx, bool trans_a, bool trans_b,
                        int64_t m, int64_t n, int64_t k, const T* a,
                        int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc,
                        bool split = true) {
    if constexpr (std::is_same_v<T, float>)
      return dnn_.multiply(ctx, trans_a, trans_b, m, n, k, a, lda, b, ldb, {},
                           c, ldc, split);
    gemm<T>(split ? &ctx : nullptr, trans_a, trans_b, m, n, k, a, lda, b, ldb,
            T(0), c, ldc);
    return core::status::ok();
  }

  /// The products with input `left` on the left, read and written where
  /// the operands and the output lie: C[batch] (free_l x free_r) =
  /// left[batch] (free_l x contracted) right[batch] (contracted x free_r),
  /// each a strided matrix, transposed or not, at its batch's offset. No
  /// value when some matrix does not lie so (then nothing is written).
  std::optional<core::status>
  in_place(kernel_context& ctx, const einsum_equation& eq,
           const std::vector<core::shape>& shapes,
           const std::map<char, int64_t>& size, const std::string& batch,
           const std::string& free_l, const std::string& contracted,
           const std::string& free_r, size_t left, T* z) {
    auto rows = batch.size() + free_l.size(), cols = rows + contracted.size();
    auto l = view_of(eq.inputs[left], shapes[left], batch + free_l + contracted,
                     size);
    auto r = view_of(eq.inputs[1 - left], shapes[1 - left],
                     batch + contracted + free_r, size);
    std::vector<int64_t> out_dims;
    for (char ch : eq.output)
      out_dims.push_back(size.at(ch));
    auto o = view_of(eq.output, core::shape{out_dims}, batch + free_l + free_r,
                     size);
    auto nb = batch.size();
    auto la = layout_of(merged(l, nb, rows), merged(l, rows, cols));
    auto ra = layout_of(merged(r, nb, nb + contracted.size()),
                        merged(r, nb + contracted.size(), r.sizes.size()));
    auto oa = layout_of(merged(o, nb, rows), merged(o, rows, o.sizes.size()));
    if (!la.ok || !ra.ok || !oa.ok || oa.trans)
      return std::nullopt;
    auto m = volume(free_l, size), n = volume(free_r, size),
         k = volume(contracted, size);
    const T* a = ctx.input(left).data<T>();
    const T* b = ctx.input(1 - left).data<T>();
    // Batch i's offset into a view: its index per batch label.
    auto offset = [nb](const view& v, int64_t i) {
      int64_t at = 0;
      for (size_t d = nb; d-- > 0;) {
        at += i % v.sizes[d] * v.strides[d];
        i /= v.sizes[d];
      }
      return at;
    };
    auto count = volume(batch, size);
    // Many small products (attention's heads) go a batch to a thread,
    // each on its own; a large one is cut over the pool by itself.
    parallel_split split{&ctx, count > 1 && m * n * k < whole_product
                                 && count * m * n * k >= whole_product};
    auto parts = static_cast<int>(std::min<int64_t>(split.threads(), count));
    std::vector<core::status> failed(static_cast<size_t>(parts));
    split.run(parts, [&](int part) {
      for (int64_t i = count * part / parts, end = count * (part + 1) / parts;
           i < end && failed[static_cast<size_t>(part)].is_ok(); ++i)
        failed[static_cast<size_t>(part)] = multiply(
          ctx, la.trans, ra.trans, m, n, k, a + offset(l, i), la.ld,
          b + offset(r, i), ra.ld, z + offset(o, i), oa.ld, parts == 1);
    });
    for (const auto& st : failed)
      ACTORFLOW_RETURN_IF_ERROR(st);
    return core::status::ok();
  }

  std::string equation_;
  onednn_matmul dnn_;
};

} // namespace

void register_einsum_kernels(kernel_registry& r) {
  r.add_typed<einsum_kernel, float, double>("Einsum", device_type);
}

} // namespace actorflow::ops::cpu
