// The checks that every variant of one kernel agrees with the first (parameters, kinds, types,
// grid) before link_group.cpp groups them: a disagreement is an error naming both files.
#include "linker/kernel_agreement.h"

#include "contract/grid.h"
#include "linker/link_group.h"

#include <algorithm>
#include <set>

namespace tta::link {

ParamClass classOf(ParamInfo::Kind kind) {
  switch (kind) {
  case ParamInfo::Kind::Pointer:
  case ParamInfo::Kind::TensorDesc: // compared by element type and rank (tensorDescType)
  case ParamInfo::Kind::TensorDescShape:
  case ParamInfo::Kind::TensorDescStride:
    return ParamClass::Pointer;
  case ParamInfo::Kind::Scalar:
  case ParamInfo::Kind::SpecializedToOne:
  case ParamInfo::Kind::HeuristicInput:
    return ParamClass::Scalar;
  case ParamInfo::Kind::Constexpr:
    return ParamClass::Constexpr;
  case ParamInfo::Kind::GlobalScratch:
    return ParamClass::GlobalScratch;
  case ParamInfo::Kind::ProfileScratch:
    break;
  }
  return ParamClass::ProfileScratch;
}

bool isRuntime(ParamInfo::Kind kind) {
  return kind == ParamInfo::Kind::Pointer || kind == ParamInfo::Kind::Scalar;
}

namespace {

const char *classWord(ParamClass c) {
  switch (c) {
  case ParamClass::Pointer:
    return "a pointer";
  case ParamClass::Scalar:
    return "a runtime scalar";
  case ParamClass::Constexpr:
    return "a constexpr";
  case ParamClass::GlobalScratch:
    return "the global scratch pointer";
  case ParamClass::ProfileScratch:
    break;
  }
  return "the profile scratch pointer";
}

std::string paramNames(const std::vector<ParamInfo> &params) {
  std::string out;
  for (const ParamInfo &p : params)
    out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

std::string gridText(const std::optional<std::array<std::string, 3>> &grid) {
  if (!grid)
    return "the caller's (no grid compiled in)";
  return "[" + (*grid)[0] + ", " + (*grid)[1] + ", " + (*grid)[2] + "]";
}

/// What the C signature of a host tensor descriptor depends on: its element type and rank.
/// The block shape may differ between configs (it is the box of each function's map).
std::string tensorDescType(const ParamInfo &p) {
  const std::size_t open = p.type.find('<'), bracket = p.type.find('[');
  const std::string element = open != std::string::npos && bracket != std::string::npos && open < bracket
                                  ? p.type.substr(open + 1, bracket - open - 1)
                                  : p.type;
  return "tensordesc<" + element + "> of rank " +
         std::to_string(p.tensordesc ? p.tensordesc->rank : 0);
}

/// \p other must be the same kernel as \p first: same function, parameters and grid.
} // namespace

Status checkSameKernel(const ReadVariant &first, const ReadVariant &other) {
  const KernelMetadata &a = first.meta, &b = other.meta;
  const std::string there = " in '" + first.file + "'";
  const std::string kernel = "kernel '" + b.name + "'";
  if (a.function != b.function || a.source != b.source)
    return errorIn(other.file, kernel + " is the function '" + b.function + "' of '" + b.source +
                                   "' here but '" + a.function + "' of '" + a.source + "'" +
                                   there + ": one kernel name cannot stand for two functions; "
                                           "give one of them another name (--out-name)");
  const std::string fix = ": every variant of a kernel must have the same C signature; give "
                          "variants that differ their own kernel name (--out-name)";
  std::size_t common = std::min(a.params.size(), b.params.size());
  for (std::size_t i = 0; i < common; ++i) {
    const ParamInfo &p = b.params[i], &q = a.params[i];
    std::string where = "parameter " + std::to_string(i + 1) + " of " + kernel;
    if (p.name != q.name)
      return errorIn(other.file, where + " is '" + p.name + "' here but '" + q.name + "'" +
                                     there + fix);
    ParamClass pc = classOf(p.kind), qc = classOf(q.kind);
    bool constexprMix = (pc == ParamClass::Constexpr) != (qc == ParamClass::Constexpr);
    if (constexprMix)
      return errorIn(other.file,
                     where + ", '" + p.name + "', is " + classWord(pc) + " here but " +
                         classWord(qc) + there +
                         ": a parameter is either a constexpr in every variant or a runtime "
                         "parameter in every variant (declare it ':1' to specialise an integer "
                         "to 1 and keep it in the API)");
    if (pc != qc)
      return errorIn(other.file, where + ", '" + p.name + "', is " + classWord(pc) + " here but " +
                                     classWord(qc) + there + fix);
    if (p.kind == ParamInfo::Kind::TensorDesc && q.kind == ParamInfo::Kind::TensorDesc) {
      if (tensorDescType(p) != tensorDescType(q))
        return errorIn(other.file, where + ", '" + p.name + "', is a " + tensorDescType(p) +
                                       " here but a " + tensorDescType(q) + there + fix);
      continue;
    }
    if (p.kind != q.kind &&
        (p.kind == ParamInfo::Kind::TensorDesc || q.kind == ParamInfo::Kind::TensorDesc ||
         p.kind == ParamInfo::Kind::HeuristicInput || q.kind == ParamInfo::Kind::HeuristicInput))
      return errorIn(other.file, where + ", '" + p.name + "', is a " + paramKindName(p.kind) +
                                     " here but a " + paramKindName(q.kind) + there + fix);
    if (pc != ParamClass::Constexpr && p.type != q.type)
      return errorIn(other.file, where + ", '" + p.name + "', has type " + p.type + " here but " +
                                     q.type + there + fix);
  }
  if (a.params.size() != b.params.size())
    return errorIn(other.file, kernel + " has " + std::to_string(b.params.size()) +
                                   " parameters here (" + paramNames(b.params) + ") but " +
                                   std::to_string(a.params.size()) + there + " (" +
                                   paramNames(a.params) + ")" + fix);
  if (a.grid != b.grid)
    return errorIn(other.file, "the grid of " + kernel + " is " + gridText(b.grid) + " here but " +
                                   gridText(a.grid) + there +
                                   ": every variant of a kernel launches with the same grid");
  return ok();
}

const ParamInfo *findParam(const std::vector<ParamInfo> &params, const std::string &name) {
  for (const ParamInfo &p : params)
    if (p.name == name)
      return &p;
  return nullptr;
}

/// The grid is evaluated in 64-bit integers: every name in it must be an integer.
Status checkGridNames(const ReadVariant &v) {
  if (!v.meta.grid)
    return ok(); // the caller's grid
  auto grid = parseGrid(std::vector<std::string>(v.meta.grid->begin(), v.meta.grid->end()));
  if (!grid)
    return errorIn(v.file, "grid: " + grid.error().message);
  const std::string kernel = "kernel '" + v.meta.name + "'";
  for (const std::set<std::string> &names : grid->names)
    for (const std::string &name : names) {
      const ParamInfo *p = findParam(v.meta.params, name);
      if (!p)
        return errorIn(v.file, "the grid of " + kernel + " uses '" + name +
                                   "', which is not one of its parameters");
      if (p->kind == ParamInfo::Kind::Constexpr && !p->value.is_number_integer() &&
          !p->value.is_boolean())
        return errorIn(v.file, "the grid of " + kernel + " uses the constexpr '" + name +
                                   "', which is " + (p->valueText.empty() ? p->value.dump() : p->valueText) +
                                   " here: grids are integer expressions, so a constexpr in "
                                   "them must be an integer");
      bool isFloat = p->type.rfind("fp", 0) == 0 || p->type.rfind("bf", 0) == 0;
      if (p->kind == ParamInfo::Kind::Pointer || p->kind == ParamInfo::Kind::TensorDesc ||
          (p->kind == ParamInfo::Kind::Scalar && isFloat) ||
          p->kind == ParamInfo::Kind::GlobalScratch || p->kind == ParamInfo::Kind::ProfileScratch)
        return errorIn(v.file, "the grid of " + kernel + " uses '" + name + "', a " + p->type +
                                   " parameter: grids are integer expressions");
    }
  return ok();
}

} // namespace tta::link
