#include "contract/variant_origins.h"

namespace tta {

std::string describeVariantOrigins(std::size_t compiled, std::size_t local, std::size_t remote) {
  return std::to_string(compiled + local + remote) + " variant(s): " + std::to_string(compiled) +
         " compiled, " + std::to_string(local) + " from the local cache, " +
         std::to_string(remote) + " from the remote cache";
}

} // namespace tta
