#include "actorflow/ops/collective.hpp"

namespace actorflow::ops {

collective_executor::~collective_executor() = default;

} // namespace actorflow::ops
