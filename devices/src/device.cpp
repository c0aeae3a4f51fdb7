#include "actorflow/devices/device.hpp"

namespace actorflow::devices {

device::device(core::device_name name)
  : name_(std::move(name)), full_name_(name_.to_string()) {
  // nop
}

device::~device() {
  // nop
}

} // namespace actorflow::devices
