#include "actorflow/core/variant.hpp"

namespace actorflow::core {

variant_value::~variant_value() {
  // nop
}

} // namespace actorflow::core
