#include "actorflow/core/build_info.hpp"

namespace actorflow::core {

build_info library_build_info() {
  return header_build_info();
}

} // namespace actorflow::core
