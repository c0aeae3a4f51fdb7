// Image ops: resizing NHWC images (Keras' UpSampling2D and Resizing) and
// the gradients of the resizes.

#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

/// [batch, size[0], size[1], channels] from an NHWC image and a constant
/// size (input 1).
core::status resized_shape(shape_context& ctx) {
  auto image = ctx.input(0);
  if (image.known_rank() && image.rank() != 4)
    return core::invalid_argument_error("resizing needs NHWC images, got ",
                                        image.to_string());
  std::vector<int64_t> size;
  bool known = ctx.input_ints(1, &size);
  if (known && size.size() != 2)
    return core::invalid_argument_error("size must be [height, width], got ",
                                        size.size(), " values");
  ctx.set_output(0, core::shape{image.known_rank() ? image.dim(0) : -1,
                                known ? size[0] : -1, known ? size[1] : -1,
                                image.known_rank() ? image.dim(3) : -1});
  return core::status::ok();
}

/// The two attrs of TensorFlow's resizes: how the corners and the pixel
/// centres map (tf.image.resize writes half_pixel_centers true).
op_def_builder& resize_attrs(op_def_builder& b) {
  return b.attr("align_corners: bool = false")
    .attr("half_pixel_centers: bool = false");
}

} // namespace

core::status register_image_ops(op_registry& r) {
  // Bilinear: a float image of the input's values interpolated; nearest:
  // the input's dtype, each output pixel a copy of the nearest input one.
  {
    op_def_builder b{"ResizeBilinear"};
    b.input("images: T")
      .input("size: int32")
      .output("resized_images: float")
      .attr("T: {float, double}")
      .shape_fn(resized_shape);
    ACTORFLOW_RETURN_IF_ERROR(r.add(resize_attrs(b)));
  }
  {
    op_def_builder b{"ResizeNearestNeighbor"};
    b.input("images: T")
      .input("size: int32")
      .output("resized_images: T")
      .attr("T: {float, double, int32, int64}")
      .shape_fn(resized_shape);
    ACTORFLOW_RETURN_IF_ERROR(r.add(resize_attrs(b)));
  }
  // Their gradients: the output's gradient spread back with the
  // interpolation's weights (onto original_image's shape), or summed into
  // the nearest input pixel (of `size`).
  {
    op_def_builder b{"ResizeBilinearGrad"};
    b.input("grads: float")
      .input("original_image: T")
      .output("output: T")
      .attr("T: {float, double}")
      .shape_fn([](shape_context& ctx) {
        ctx.set_output(0, ctx.input(1));
        return core::status::ok();
      });
    ACTORFLOW_RETURN_IF_ERROR(r.add(resize_attrs(b)));
  }
  {
    op_def_builder b{"ResizeNearestNeighborGrad"};
    b.input("grads: T")
      .input("size: int32")
      .output("output: T")
      .attr("T: {float, double}")
      .shape_fn(resized_shape);
    ACTORFLOW_RETURN_IF_ERROR(r.add(resize_attrs(b)));
  }
  return core::status::ok();
}

} // namespace actorflow::ops::defs
