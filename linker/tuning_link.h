// --tuning: tuning tables (contract/tuning_table.h) checked against the library and turned into
// each kernel's shape dispatch (link_model.h KernelTuning), before anything is written.
#pragma once

#include "contract/diagnostic.h"
#include "contract/log_sink.h"
#include "linker/link_model.h"

#include <string>
#include <vector>

namespace tta::link {

/// Reads \p tables (merged in order), checks each tuned kernel against \p library (it exists,
/// its key names integer runtime parameters, every config the dispatch picks is one of its
/// configs) and sets Kernel::tuning. A target of a table that no image of the kernel has is
/// skipped with a warning through \p log. Errors name the table and what to change.
Status applyTuning(Library &library, const std::vector<std::string> &tables, const LogSink &log);

} // namespace tta::link
