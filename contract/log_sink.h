// Where the tools' libraries send progress and --verbose lines: the library never prints, its
// caller decides where a line goes.
#pragma once

#include <functional>
#include <string_view>

namespace tta {

/// Receives progress and --verbose lines; the library never prints.
using LogSink = std::function<void(std::string_view line)>;

} // namespace tta
