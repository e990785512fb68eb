// The parts of the metadata reader (contract/metadata.cpp) that the library manifest's reader
// shares with it: targets, variant ids, launch facts and a tensor descriptor's TMA facts, read
// and checked the same way wherever they appear. Internal to contract/.
#pragma once

#include "contract/field_reader.h"
#include "contract/metadata.h"

namespace tta::fields {

/// A target in its canonical spelling ("cuda:90a"), parsed.
Target readTarget(const nlohmann::json &value, const std::string &path);
/// A variant id ("add.sm90a.3f2a9c1e07d4", compiler/naming.h): file-name characters.
std::string readVariantId(const nlohmann::json &value, const std::string &path);
/// Every launch fact but the entry (warp_size, num_warps, block, shared, num_ctas,
/// cluster_dims, global_scratch, profile_scratch, cooperative, pdl, tmem_size), each within what
/// a device of \p target can launch (contract/target_limits.h).
void readLaunchFacts(const ObjectReader &obj, const Target &target, LaunchInfo &launch);
/// rank, data_type, elem_size, swizzle, box, fp4_padded, shape_args_padded.
TensorDescInfo readTensorDesc(const ObjectReader &obj);

} // namespace tta::fields
