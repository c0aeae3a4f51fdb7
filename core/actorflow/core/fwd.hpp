#pragma once

/// Forward declarations of the core component.

#include <cstdint>

namespace actorflow::core {

class allocator;
class cpu_allocator;
class shape;
class status;
class tensor;
class tensor_buffer;
enum class dtype : uint8_t;
enum class errc : uint8_t;
struct device_name;
struct input_ref;
struct node_def;

} // namespace actorflow::core
