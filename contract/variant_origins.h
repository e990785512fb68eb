// Where a library's variants came from, counted: the totals line that triton-aot-cc --summary
// prints, and triton-aot-ld for a library built with a remote cache.
#pragma once

#include <cstddef>
#include <string>

namespace tta {

/// "N variant(s): C compiled, L from the local cache, R from the remote cache": the totals line
/// of --summary, and of triton-aot-ld for a library built with a remote cache.
std::string describeVariantOrigins(std::size_t compiled, std::size_t local, std::size_t remote);

} // namespace tta
