// The "autotune" member that metadata files and library manifests share, read by one function
// for both readers (inside fields::readFields(): a wrong field throws its FieldError).
#pragma once

#include "contract/field_reader.h"
#include "contract/metadata.h"

namespace tta {

/// key, reset_to_zero and restore_value (C identifiers), configs ("decorator" or
/// "declaration"), dropped_pre_hooks (one-line texts).
AutotuneInfo readAutotuneFields(const fields::ObjectReader &autotune);

} // namespace tta
