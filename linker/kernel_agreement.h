// Agreement between the variants of one kernel (kernel_agreement.cpp), for link_group.cpp.
#pragma once

#include "contract/metadata.h"
#include "linker/link_group.h"

#include <string>
#include <vector>

namespace tta::link {

/// What a parameter is, as far as the C signature goes: a ":1" scalar is still a scalar.
enum class ParamClass { Pointer, Scalar, Constexpr, GlobalScratch, ProfileScratch };

ParamClass classOf(ParamInfo::Kind kind);
/// A pointer or scalar the caller passes as it is (not ":1", a constexpr, a descriptor part or a
/// scratch pointer).
bool isRuntime(ParamInfo::Kind kind);
/// \p other compiles the same function as \p first: the same parameters, kinds, types and grid.
Status checkSameKernel(const ReadVariant &first, const ReadVariant &other);
const ParamInfo *findParam(const std::vector<ParamInfo> &params, const std::string &name);
/// The grid of \p v names parameters and constexprs it has, of integer types.
Status checkGridNames(const ReadVariant &v);

} // namespace tta::link
