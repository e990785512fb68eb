// <lib>.c: static const tables for the runtime (runtime-shim/include/triton_aot/runtime.h) and
// one dispatcher per kernel: config -> hint variant -> grid -> triton_aot_launch().
#include "linker/c_text.h"
#include "linker/codegen_parts.h"
#include "linker/link_group.h"
#include "linker/grid_codegen.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>

namespace tta::link {

namespace {

bool isPointer(const CParam &param) { return !param.cType.empty() && param.cType.back() == '*'; }

bool isTensorPart(const CParam &param) { return param.tensorPart != CParam::TensorPart::None; }

/// Indices (into Kernel::cParams) of each host tensor descriptor's base parameter, in order.
std::vector<std::size_t> tensorBases(const Kernel &kernel) {
  std::vector<std::size_t> out;
  for (std::size_t p = 0; p < kernel.cParams.size(); ++p)
    if (kernel.cParams[p].tensorPart == CParam::TensorPart::Base)
      out.push_back(p);
  return out;
}

/// {rank, data_type, elem_size, swizzle, flags, {box}}: a triton_aot_tensor_map row.
std::string tensorMapRow(const TensorDescInfo &t) {
  std::string flags;
  if (t.fp4Padded)
    flags = "TRITON_AOT_TENSOR_FP4_PADDED";
  if (t.fp4Padded && t.shapeArgsPadded)
    flags += " | TRITON_AOT_TENSOR_SHAPE_ARGS_PADDED";
  std::string box;
  for (std::size_t d = 0; d < 5; ++d)
    box += (d ? ", " : "") + std::to_string(d < t.box.size() ? t.box[d] : 0);
  return "{" + std::to_string(t.rank) + ", " + std::to_string(t.dataType) + ", " +
         std::to_string(t.elemSize) + ", " + std::to_string(t.swizzle) + ", " +
         (flags.empty() ? "0" : flags) + ", {" + box + "}}";
}

/// The test a hint promises, or (with \p negated) the test that it is broken.
std::string hintTest(const CParam &param, const std::string &name, int hint, bool negated) {
  const char *eq = negated ? " != " : " == ";
  if (isPointer(param))
    return hint == 16 ? "((uintptr_t)" + name + " & 15u)" + eq + "0"
                      : "(uintptr_t)" + name + eq + "1";
  return hint == 16 ? name + " % 16" + eq + "0" : name + eq + "1";
}

std::string brokenPromise(const CParam &param, int hint) {
  if (hint == 1)
    return param.name + " is not 1";
  return param.name + (isPointer(param) ? " is not 16-byte aligned" : " is not a multiple of 16");
}

std::size_t hintCount(const std::vector<int> &hints) {
  return static_cast<std::size_t>(
      std::count_if(hints.begin(), hints.end(), [](int h) { return h != 0; }));
}

/// "cond1 && cond2", continued on lines indented by \p indent when long.
std::string conjunction(const std::vector<std::string> &tests, std::size_t indent) {
  std::string out;
  std::size_t column = indent;
  for (std::size_t i = 0; i < tests.size(); ++i) {
    if (i > 0) {
      if (column + 4 + tests[i].size() > 98) {
        out += " &&\n" + std::string(indent, ' ');
        column = indent;
      } else {
        out += " && ";
        column += 4;
      }
    }
    out += tests[i];
    column += tests[i].size();
  }
  return out;
}

const char *imageKind(const std::string &kind) {
  if (kind == "cubin")
    return "TRITON_AOT_IMAGE_CUBIN";
  if (kind == "ptx")
    return "TRITON_AOT_IMAGE_PTX";
  if (kind == "hsaco")
    return "TRITON_AOT_IMAGE_HSACO";
  return "0 /* unknown image kind */";
}

int featureValue(char feature) { return feature == '+' ? 1 : feature == '-' ? 0 : -1; }

std::string launchInfo(const LaunchInfo &launch) {
  std::string flags;
  if (launch.cooperative)
    flags = "TRITON_AOT_LAUNCH_COOPERATIVE";
  if (launch.pdl)
    flags += std::string(flags.empty() ? "" : " | ") + "TRITON_AOT_LAUNCH_PDL";
  std::ostringstream out;
  out << "{" << launch.block[0] << ", " << launch.shared << ", {" << launch.clusterDims[0] << ", "
      << launch.clusterDims[1] << ", " << launch.clusterDims[2] << "}, " << launch.numCtas << ", "
      << (flags.empty() ? "0" : flags) << ", " << launch.globalScratch.size << ", "
      << launch.globalScratch.align << ", " << launch.profileScratch.size << ", "
      << launch.profileScratch.align << "}";
  return out.str();
}

/// The C text of every name a grid expression of config \p config may use.
std::map<std::string, std::string, std::less<>>
gridNames(const Kernel &kernel, const KernelPlan &plan, const KernelConfig *config) {
  std::map<std::string, std::string, std::less<>> names;
  for (const std::string &name : kernel.oneOnly)
    names[name] = "INT64_C(1)";
  if (config)
    for (const auto &[name, value] : config->constexprs)
      names[name] = constexprLiteral(value).value_or("tta_constexpr_" + name + "_is_not_a_number");
  for (std::size_t p = 0; p < kernel.cParams.size(); ++p)
    if (!isTensorPart(kernel.cParams[p]))   // no grid names them (checkGridNames)
      names[kernel.cParams[p].name] = "(int64_t)" + plan.params[p];
  return names;
}

/// Whether a grid expression names \p name (as a whole identifier).
bool gridNames(const Kernel &kernel, const std::string &name) {
  if (!kernel.grid)
    return false;   // the caller's grid names nothing
  for (const std::string &dim : *kernel.grid)
    for (std::size_t at = dim.find(name); at != std::string::npos; at = dim.find(name, at + 1)) {
      auto identChar = [](char c) {
        return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      };
      const std::size_t end = at + name.size();
      if ((at == 0 || !identChar(dim[at - 1])) && (end == dim.size() || !identChar(dim[end])))
        return true;
    }
  return false;
}

/// The grid reads a heuristic decided at launch (BLOCK from n): computed per variant.
bool gridUsesLaunchHeuristics(const Kernel &kernel) {
  for (const KernelConfig &config : kernel.configs)
    for (const HintVariant &variant : config.variants)
      for (const HeuristicRecord &h : variant.heuristics)
        if (gridNames(kernel, h.name))
          return true;
  return false;
}

bool gridUsesConstexprs(const Kernel &kernel) {
  if (!kernel.grid)
    return false;
  for (const KernelConfig &config : kernel.configs)
    for (const auto &[name, value] : config.constexprs)
      for (const std::string &dim : *kernel.grid)
        for (std::size_t at = dim.find(name); at != std::string::npos;
             at = dim.find(name, at + 1)) {
          auto identChar = [](char c) {
            return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                   (c >= 'A' && c <= 'Z');
          };
          const bool starts = at == 0 || !identChar(dim[at - 1]);
          const std::size_t end = at + name.size();
          if (starts && (end == dim.size() || !identChar(dim[end])))
            return true;
        }
  return false;
}

/// tta_strings: every name the tables and the API return, each once, NUL-terminated, by offset.
/// Offsets rather than pointers keep the tables free of relocations (see runtime.h).
class StringTable {
public:
  std::uint32_t add(const std::string &text) {
    const auto [at, inserted] = offsets_.emplace(text, size_);
    if (inserted) {
      order_.push_back(text);
      size_ += static_cast<std::uint32_t>(text.size() + 1);
    }
    return at->second;
  }
  bool empty() const { return order_.empty(); }
  void write(std::ostream &out) const {
    if (empty())
      return;
    // ISO C promises string literals of 4,095 bytes only (-Wpedantic says so); GCC and clang
    // take any length, and __extension__ keeps them quiet about it.
    out << "/* entry and config names, NUL-terminated, at the offsets the tables use */\n"
        << "#if defined(__GNUC__)\n__extension__\n#endif\n"
        << "static const char tta_strings[] =\n";
    for (const std::string &text : order_) {
      std::string literal = cStringLiteral(text);
      literal.insert(literal.size() - 1, "\\0"); // an escape cannot swallow the quote after it
      out << "  " << literal << " /* " << offsets_.at(text) << " */\n";
    }
    out << "  ;\n\n";
  }

private:
  std::map<std::string, std::uint32_t, std::less<>> offsets_;
  std::vector<std::string> order_;
  std::uint32_t size_ = 0;
};

struct Used {
  GridHelpers grid;
  std::set<std::string> heuristicHelpers;   ///< helper functions heuristic tests call
  bool invalid = false; ///< tta_invalid()
  bool launch = false;  ///< tta_launch()
  bool launchTensors = false;  ///< tta_launch_tensors()
};

class DispatcherWriter {
public:
  DispatcherWriter(const Library &library, const CodegenPlan &plan, std::size_t k, Used &used)
      : plan_(plan), kernel_(library.kernels[k]), kp_(plan.kernels[k]), used_(used) {}

  void write(std::ostream &out) {
    const bool split = kp_.entries.size() > 1;
    std::vector<std::string> params = apiParameters(kernel_, kp_, true);
    out << wrapCall("static triton_aot_status " + kp_.statics + "_dispatch", params, " {\n");
    for (std::size_t e : kp_.entries)
      writeArgs(out, plan_.entries[e], split);
    const std::vector<std::size_t> bases = tensorBases(kernel_);
    if (!bases.empty())
      writeTensors(out, bases);
    out << "  int64_t " << kp_.grid << "[3];\n";
    if (split)
      out << "  void **" << kp_.args << ";\n  uint32_t " << kp_.entry << ", " << kp_.variant
          << ";\n";
    else
      out << "  uint32_t " << kp_.variant << ";\n";

    perVariantGrid_ = kernel_.grid && gridUsesLaunchHeuristics(kernel_);
    const bool perConfigGrid = kernel_.grid && gridUsesConstexprs(kernel_) && !perVariantGrid_;
    if (kernel_.grid) {
      out << "  /* grid: (" << commentText((*kernel_.grid)[0]) << ", "
          << commentText((*kernel_.grid)[1]) << ", " << commentText((*kernel_.grid)[2]) << ") */\n";
    } else {
      out << "  /* grid: the caller's */\n";
    }
    if (!perConfigGrid && !perVariantGrid_)
      writeGrid(out, nullptr, "  ");
    out << "  switch (" << kp_.config << ") {\n";
    for (std::size_t c = 0; c < kernel_.configs.size(); ++c) {
      out << "  case " << c << ": /* " << commentText(cStringLiteral(kernel_.configs[c].name))
          << " */\n";
      if (perConfigGrid)
        writeGrid(out, &kernel_.configs[c], "    ");
      writeVariantChoice(out, c);
      out << "    break;\n";
    }
    const std::string outOfRange = kp_.api + ": config %d is out of range; it has " +
                                   std::to_string(kernel_.configs.size()) +
                                   (kernel_.configs.size() == 1 ? " config" : " configs");
    out << "  default:\n"
        << "    return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,\n"
        << "                           "
        << wrappedStringLiteral(outOfRange, 27, 27, kp_.config.size() + 4) << ", " << kp_.config
        << ");\n"
        << "  }\n";
    (bases.empty() ? used_.launch : used_.launchTensors) = true;
    const std::string tail = bases.empty() ? ");\n}\n\n" : ", tta_tensors, tta_storage);\n}\n\n";
    const std::string call = bases.empty() ? "  return tta_launch(" : "  return tta_launch_tensors(";
    if (split)
      out << call << kp_.entry << ", " << kp_.variant << ", " << kp_.stream << ", " << kp_.grid
          << ", " << kp_.args << tail;
    else
      out << call << kp_.entries.front() << ", " << kp_.variant << ", " << kp_.stream << ", "
          << kp_.grid << ", " << plan_.entries[kp_.entries.front()].argsName << tail;
  }

private:
  /// The caller's descriptors (tta_tensors) and the storage the runtime encodes them into
  /// (tta_storage; names no parameter can take: tta_ ones are refused or escaped).
  void writeTensors(std::ostream &out, const std::vector<std::size_t> &bases) {
    std::vector<std::string> rows;
    for (std::size_t b : bases) {
      std::vector<std::string> shape, strides;
      for (std::size_t p = b + 1; p < kernel_.cParams.size() &&
                                  kernel_.cParams[p].tensor == kernel_.cParams[b].tensor;
           ++p)
        (kernel_.cParams[p].tensorPart == CParam::TensorPart::Shape ? shape : strides)
            .push_back(kp_.params[p]);
      auto join = [](const std::vector<std::string> &items) {
        std::string text;
        for (const std::string &item : items)
          text += (text.empty() ? "" : ", ") + item;
        return "{" + text + "}";
      };
      const std::string row =
          "    {" + kp_.params[b] + ", " + join(shape) + ", " + join(strides) + "},";
      rows.push_back(row.size() <= 100 ? row
                                       : "    {" + kp_.params[b] + ",\n     " + join(shape) +
                                             ",\n     " + join(strides) + "},");
    }
    out << "  /* host tensor descriptors: the caller's, and where the runtime encodes them */\n"
        << "  const triton_aot_tensor_arg tta_tensors[" << bases.size() << "] = {\n";
    for (const std::string &row : rows)
      out << row << "\n";
    out << "  };\n"
        << "  triton_aot_tensor_storage tta_storage[" << bases.size() << "];\n";
  }

  void writeArgs(std::ostream &out, const RuntimeEntry &entry, bool split) {
    std::vector<std::string> values;
    std::string omitted;
    for (std::size_t p = 0; p < kernel_.cParams.size(); ++p) {
      if (entry.passed[p] && isTensorPart(kernel_.cParams[p]))
        values.push_back("NULL");   // the runtime points these at tta_storage
      else if (entry.passed[p])
        values.push_back("&" + kp_.params[p]);
      else
        omitted += (omitted.empty() ? "" : ", ") + kernel_.cParams[p].name + " == 1";
    }
    if (split)
      out << "  /* " << (omitted.empty() ? "every argument" : "compiled with " + omitted)
          << " */\n";
    const std::string declaration =
        "  void *" + entry.argsName + "[" + std::to_string(entry.argCount) + " + 2]";
    if (values.empty())
      out << declaration << ";\n";
    else
      out << wrapList(declaration + " = ", "{", values, "}", ";\n");
  }

  void writeGrid(std::ostream &out, const KernelConfig *config, const std::string &indent) {
    if (!kernel_.grid) {
      const std::string *dims[3] = {&kp_.gridX, &kp_.gridY, &kp_.gridZ};
      for (int d = 0; d < 3; ++d)
        out << indent << kp_.grid << "[" << d << "] = " << *dims[d] << ";\n";
      return;
    }
    const auto names = gridNames(kernel_, kp_, config);
    for (int d = 0; d < 3; ++d)
      out << indent << kp_.grid << "[" << d << "] = "
          << emitGridExpression((*kernel_.grid)[static_cast<std::size_t>(d)], names, used_.grid)
          << ";\n";
  }

  std::string choose(const VariantRef &ref) const {
    if (kp_.entries.size() == 1)
      return kp_.variant + " = " + std::to_string(ref.variant) + ";";
    return "{ " + kp_.entry + " = " + std::to_string(ref.entry) + "; " + kp_.variant + " = " +
           std::to_string(ref.variant) + "; " + kp_.args + " = " +
           plan_.entries[ref.entry].argsName + "; }";
  }

  void writeVariantChoice(std::ostream &out, std::size_t c) {
    const KernelConfig &config = kernel_.configs[c];
    // Most specialised first; the model is already in that order, but the dispatcher must not
    // depend on it: a generic variant tried early would shadow every specialised one.
    std::vector<std::size_t> order(config.variants.size());
    for (std::size_t v = 0; v < order.size(); ++v)
      order[v] = v;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return hintCount(config.variants[a].hints) > hintCount(config.variants[b].hints);
    });
    writeHeuristicValueChecks(out, config);
    bool first = true;
    bool tested = false;   // some variant is chosen by a heuristic test
    for (std::size_t v : order) {
      const std::vector<int> &hints = config.variants[v].hints;
      std::string action = choose(kp_.variants[c][v]);
      if (perVariantGrid_) {
        KernelConfig values = config;
        values.constexprs = config.variants[v].constexprs;
        std::ostringstream grid;
        writeGrid(grid, &values, "        ");
        action = "{\n        " + action + "\n" + grid.str() + "      }";
      }
      std::vector<std::string> tests;
      for (std::size_t p = 0; p < hints.size() && p < kernel_.cParams.size(); ++p)
        if (hints[p] != 0)
          tests.push_back(hintTest(kernel_.cParams[p], kp_.params[p], hints[p], false));
      bool never = false;
      for (const HeuristicRecord &h : config.variants[v].heuristics)
        if (auto test = heuristicTest(h, config.variants[v].constexprs, never); !test.empty())
          tests.push_back(test), tested = true;
      if (never)
        continue;   // its heuristics' values are decided by other tests that exclude it
      if (tests.empty()) {
        out << (first ? "    " : "    else\n      ") << action << "\n";
        return;
      }
      out << "    " << (first ? "if (" : "else if (") << conjunction(tests, first ? 8 : 13) << ")\n"
          << "      " << action << "\n";
      first = false;
    }
    if (tested) {
      used_.invalid = true;
      out << "    else\n      return tta_invalid("
          << wrappedStringLiteral(kp_.api + ": no variant was compiled for these arguments "
                                            "(its @triton.heuristics values and hints)",
                                  25, 25, 2)
          << ");\n";
      return;
    }
    writeNoVariant(out, c, order.empty() ? nullptr : &config.variants[order.back()]);
  }

  /// C over the dispatcher's variables computing heuristic \p h, with \p constexprs for the
  /// names that are no C parameter. Empty when it cannot be emitted (the linker checked).
  std::string heuristicC(const HeuristicRecord &h,
                         const std::map<std::string, nlohmann::json> &constexprs,
                         std::optional<HeuristicValue> *constant = nullptr) {
    auto expr = parseHeuristic(h.expression, HeuristicDialect::C);
    if (!expr)
      return {};
    if (constant) {
      std::map<std::string, HeuristicValue> known;
      auto resolve = heuristicResolver(kernel_, {}, constexprs);
      bool all = true;
      for (const std::string &name : expr->names) {
        auto b = resolve(name);
        all = all && b && b->kind == HeuristicBinding::Kind::Constant;
        if (b)
          known[name] = b->value;
      }
      if (all)
        if (auto v = evaluateHeuristic(*expr, known))
          *constant = *v;
    }
    auto text = emitHeuristicC(*expr, heuristicResolver(kernel_, kp_.params, constexprs),
                               &used_.heuristicHelpers);
    return text ? *text : std::string();
  }

  /// The test that heuristic \p h has this variant's value; empty when it always has (then
  /// \p never stays false) or never can (\p never set).
  std::string heuristicTest(const HeuristicRecord &h,
                            const std::map<std::string, nlohmann::json> &constexprs, bool &never) {
    std::optional<HeuristicValue> constant;
    const std::string text = heuristicC(h, constexprs, &constant);
    if (constant) {
      const bool same = h.value.is_boolean()
                            ? (constant->intValue != 0) == h.value.get<bool>()
                            : h.value.is_number_integer() &&
                                  constant->kind != HeuristicValue::Kind::Float &&
                                  constant->intValue == h.value.get<std::int64_t>();
      never = never || !same;
      return {};
    }
    if (h.value.is_boolean())
      return h.value.get<bool>() ? text : "!" + text;
    return text + " == " + h.value.dump();
  }

  /// An integer heuristic whose value no variant of the config was compiled for fails with
  /// INVALID_ARGUMENT naming it and the value (checked before any variant is chosen).
  void writeHeuristicValueChecks(std::ostream &out, const KernelConfig &config) {
    std::vector<std::string> names;
    std::map<std::string, std::set<std::int64_t>> values;
    std::map<std::string, const HeuristicRecord *> first;
    for (const HintVariant &variant : config.variants)
      for (const HeuristicRecord &h : variant.heuristics)
        if (h.value.is_number_integer()) {
          if (!first.count(h.name))
            names.push_back(h.name), first[h.name] = &h;
          values[h.name].insert(h.value.get<std::int64_t>());
        }
    for (const std::string &name : names) {
      // Over the config's constexprs only: one that reads another tested heuristic is left to
      // the variant tests.
      auto expr = parseHeuristic(first[name]->expression, HeuristicDialect::C);
      bool readsTested = false;
      for (const std::string &used : expr ? expr->names : std::set<std::string>())
        for (const HintVariant &variant : config.variants)
          for (const HeuristicRecord &other : variant.heuristics)
            readsTested = readsTested || other.name == used;
      const std::string text = readsTested ? std::string() : heuristicC(*first[name], config.constexprs);
      if (text.empty())
        continue;
      std::vector<std::string> tests;
      std::string listed;
      for (std::int64_t v : values[name]) {
        tests.push_back(text + " != " + std::to_string(v));
        listed += (listed.empty() ? "" : ", ") + std::to_string(v);
      }
      const std::string message =
          kp_.api + ": heuristic " + name + " is %lld, which no variant was compiled for "
          "(values: " + listed + "); add it to the values listed for " + name +
          " (--heuristic-values / HEURISTIC_VALUES)";
      out << "    if (" << conjunction(tests, 8) << ")\n"
          << "      return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,\n"
          << "                             " << wrappedStringLiteral(message, 29, 29, 2) << ",\n"
          << "                             (long long)" << text << ");\n";
    }
  }

  /// No variant fits: name the first promise of the most general variant that the arguments
  /// break (at least one is broken, or that variant would have been chosen).
  void writeNoVariant(std::ostream &out, std::size_t c, const HintVariant *general) {
    used_.invalid = true;
    const std::string where = kernel_.configs.size() == 1
                                  ? "the kernel has no generic variant"
                                  : "config " + std::to_string(c) + " has no generic variant";
    // "      return tta_invalid(" is 25 columns.
    auto message = [&](std::size_t p, int hint) {
      return wrappedStringLiteral(
          kp_.api +
              ": no variant accepts these arguments: " + brokenPromise(kernel_.cParams[p], hint) +
              " and " + where + "; declare a signature without :" + std::to_string(hint) + " hints",
          25, 25, 2);
    };
    if (!general) {
      out << "    return tta_invalid("
          << wrappedStringLiteral(kp_.api + ": config " + std::to_string(c) + " has no variants",
                                  23, 23, 2)
          << ");\n";
      return;
    }
    std::vector<std::size_t> promised;
    for (std::size_t p = 0; p < general->hints.size() && p < kernel_.cParams.size(); ++p)
      if (general->hints[p] != 0)
        promised.push_back(p);
    for (std::size_t i = 0; i < promised.size(); ++i) {
      const std::size_t p = promised[i];
      const int hint = general->hints[p];
      if (i + 1 < promised.size())
        out << "    else if (" << hintTest(kernel_.cParams[p], kp_.params[p], hint, true) << ")\n";
      else
        out << "    else\n";
      out << "      return tta_invalid(" << message(p, hint) << ");\n";
    }
  }

  const CodegenPlan &plan_;
  const Kernel &kernel_;
  const KernelPlan &kp_;
  Used &used_;
  bool perVariantGrid_ = false;   ///< the grid reads a heuristic decided at launch
};

/// tta_tensor_maps: the TMA facts of every function's descriptors, each distinct list once.
class TensorMapTable {
public:
  std::uint32_t add(const std::vector<TensorDescInfo> &maps) {
    if (maps.empty())
      return 0;
    std::string key;
    for (const TensorDescInfo &t : maps)
      key += tensorMapRow(t) + ";";
    const auto [at, inserted] = offsets_.emplace(key, static_cast<std::uint32_t>(rows_.size()));
    if (inserted)
      for (const TensorDescInfo &t : maps)
        rows_.push_back(tensorMapRow(t));
    return at->second;
  }
  bool empty() const { return rows_.empty(); }
  void write(std::ostream &out) const {
    if (empty())
      return;
    out << "/* host tensor descriptors' TMA facts (triton_aot_function.tensor_maps): rank,\n"
           " * CUtensorMapDataType, element bytes, CUtensorMapSwizzle, flags, box (outermost first) */\n"
           "static const triton_aot_tensor_map tta_tensor_maps[] = {\n";
    for (std::size_t i = 0; i < rows_.size(); ++i)
      out << "  " << rows_[i] << ", /* " << i << " */\n";
    out << "};\n\n";
  }

private:
  std::map<std::string, std::uint32_t> offsets_;
  std::vector<std::string> rows_;
};

/// tta_targets: the library's targets, in the order kernels' target lists index.
void writeTargetTable(std::ostream &out, const CodegenPlan &plan) {
  out << "/* backend, capability, arch-specific (exact capability only), name, HIP processor,\n"
         " * xnack and sramecc (-1 any, 0 off, 1 on) */\n";
  if (!plan.targets.empty()) {
    out << "static const triton_aot_target tta_targets[] = {\n";
    for (const Target &t : plan.targets)
      out << "  {"
          << (t.backend == Backend::Cuda ? "TRITON_AOT_BACKEND_CUDA" : "TRITON_AOT_BACKEND_HIP")
          << ", " << t.capability << ", " << (t.archSuffix == 'a' ? 1 : 0) << ", "
          << cStringLiteral(targetDisplayName(t)) << ", "
          << (t.backend == Backend::Hip ? cStringLiteral(t.processor) : "NULL") << ", "
          << featureValue(t.xnack) << ", " << featureValue(t.sramecc) << "},\n";
    out << "};\n\n";
  }

}

/// tta_images: where each image lies in the blob.
void writeImageTable(std::ostream &out, const Library &library, const ImageBlob &blob) {
  out << "/* offset in the blob, stored bytes, bytes after decompression, kind, compression */\n";
  if (!library.images.empty()) {
    out << "static const triton_aot_image tta_images[] = {\n";
    for (std::size_t i = 0; i < library.images.size(); ++i) {
      const StoredImage stored = i < blob.images.size() ? blob.images[i] : StoredImage{};
      const std::string file = library.images[i].sourceFile;
      out << "  /* " << i << ": " << commentText(file.substr(file.find_last_of('/') + 1)) << " */\n"
          << "  {" << stored.offset << ", " << stored.storedSize << ", "
          << stored.rawSize << ", " << imageKind(library.images[i].kind) << ", "
          << (stored.compressed ? "TRITON_AOT_COMPRESSION_ZSTD" : "TRITON_AOT_COMPRESSION_NONE")
          << "},\n";
    }
    out << "};\n\n";
  }

}

/// One kernel's tables: its descriptors' argument slots and names, its targets, and one
/// function row per (variant, target) of each runtime entry.
void writeKernelRows(std::ostream &out, const Kernel &kernel, const KernelPlan &kp,
                     const CodegenPlan &plan, StringTable &strings, TensorMapTable &tensorMaps) {
  out << "/* " << kernel.name
      << ": one row per variant and target; entry (in tta_strings), binary image,\n"
      << " * PTX image,\n"
      << " * {block_x, shared bytes, cluster, num_ctas, flags, global scratch size, align,\n"
      << " *  profile scratch size, align}, first tensor map */\n";
  const std::vector<std::size_t> bases = tensorBases(kernel);
  for (std::size_t e = 0; e < kp.entries.size() && !bases.empty(); ++e) {
    // Each descriptor's CUtensorMap slot in this entry's args (":1" parameters before it
    // are not passed, so the slot is counted over the passed ones).
    const RuntimeEntry &entry = plan.entries[kp.entries[e]];
    std::vector<std::string> slots;
    for (std::size_t b : bases)
      slots.push_back(std::to_string(std::count(entry.passed.begin(),
                                                entry.passed.begin() + static_cast<long>(b), true)));
    out << wrapList("static const uint32_t " + kp.statics + "_tensor_slots" +
                        (kp.entries.size() > 1 ? std::to_string(e) : "") + "[] = ",
                    "{", slots, "}", ";\n");
  }
  if (!bases.empty()) {
    std::vector<std::string> names;
    for (std::size_t b : bases)
      names.push_back(std::to_string(strings.add(kernel.cParams[b].name)));
    out << wrapList("static const uint32_t " + kp.statics + "_tensor_names[] = ", "{", names,
                    "}", "; /* in tta_strings */\n");
  }
  if (!kp.targets.empty()) {
    out << "static const uint32_t " << kp.statics << "_targets[] = {";
    for (std::size_t t = 0; t < kp.targets.size(); ++t)
      out << (t ? ", " : "") << kp.targets[t];
    out << "};\n";
  }
  for (std::size_t e = 0; e < kp.entries.size(); ++e) {
    const RuntimeEntry &entry = plan.entries[kp.entries[e]];
    if (kp.targets.empty())
      continue;
    out << "static const triton_aot_function " << kp.statics << "_functions"
        << (kp.entries.size() > 1 ? std::to_string(e) : "") << "[] = {\n";
    for (std::size_t row = 0; row < entry.rows.size(); ++row) {
      const auto [c, v] = entry.rows[row];
      const KernelConfig &config = kernel.configs[c];
      const std::string comment =
          "  /* variant " + std::to_string(row) + ": config " + std::to_string(c) + " " +
          commentText(cStringLiteral(config.name)) + ", " +
          commentText(variantText(kernel.cParams, config.variants[v], " ", "generic")) + " */";
      for (const std::string &line : wrapWords(comment, 100, 3))
        out << line << "\n";
      const std::vector<Function> &functions = config.variants[v].functions;
      for (std::size_t t = 0; t < functions.size(); ++t) {
        const Function &f = functions[t];
        if (!f.refusal.empty()) {
          // Not built for this target: no image; the entry string is why (the runtime's
          // message when the config is launched on such a device).
          out << "  {" << strings.add(f.refusal) << ", TRITON_AOT_NO_IMAGE, TRITON_AOT_NO_IMAGE, "
              << launchInfo(f.launch) << ", 0}, /* refused: "
              << (t < kernel.targets.size() ? targetDisplayName(kernel.targets[t]) : "?")
              << " */\n";
          continue;
        }
        out << "  {" << strings.add(f.entry) << ", " << f.binary << ", "
            << (f.ptx ? std::to_string(*f.ptx) : "TRITON_AOT_NO_IMAGE") << ", "
            << launchInfo(f.launch) << ", " << tensorMaps.add(f.tensorMaps) << "}, /* "
            << (t < kernel.targets.size() ? targetDisplayName(kernel.targets[t]) : "?")
            << " */\n";
      }
    }
    out << "};\n";
  }
  out << "\n";
}

/// tta_kernels: one row per runtime entry, pointing at its kernel's tables.
void writeKernelTable(std::ostream &out, const Library &library, const CodegenPlan &plan) {
  out << "/* name, targets, variants (config-major), their functions, first slot, arguments,\n"
         " * trailing scratch pointers, host tensor descriptors and their argument slots */\n";
  if (!plan.entries.empty()) {
    out << "static const triton_aot_kernel tta_kernels[] = {\n";
    for (std::size_t e = 0; e < plan.entries.size(); ++e) {
      const RuntimeEntry &entry = plan.entries[e];
      const Kernel &kernel = library.kernels[entry.kernel];
      const KernelPlan &kp = plan.kernels[entry.kernel];
      const std::size_t local = static_cast<std::size_t>(
          std::find(kp.entries.begin(), kp.entries.end(), e) - kp.entries.begin());
      std::string trailing;
      if (kernel.globalScratchArg)
        trailing = "TRITON_AOT_ARG_GLOBAL_SCRATCH";
      if (kernel.profileScratchArg)
        trailing += std::string(trailing.empty() ? "" : " | ") + "TRITON_AOT_ARG_PROFILE_SCRATCH";
      const bool hasTables = !kp.targets.empty();
      std::ostringstream row;
      row << "  {" << cStringLiteral(kp.api) << ", " << kp.targets.size() << ", "
          << (hasTables ? kp.statics + "_targets" : "NULL") << ", " << entry.rows.size() << ", "
          << (hasTables
                  ? kp.statics + "_functions" + (kp.entries.size() > 1 ? std::to_string(local) : "")
                  : "NULL")
          << ", " << entry.firstSlot << ", " << entry.argCount << ",";
      const std::size_t tensors = tensorBases(kernel).size();
      const std::string slots =
          tensors == 0 ? "NULL"
                       : kp.statics + "_tensor_slots" +
                             (kp.entries.size() > 1 ? std::to_string(local) : "");
      const std::string tensorPart =
          std::to_string(tensors) + ", " + slots + ", " +
          (tensors == 0 ? "NULL" : kp.statics + "_tensor_names") + "}, /* " +
          std::to_string(e) + " */";
      const std::string last = (trailing.empty() ? "0" : trailing) + ", " + tensorPart;
      if (row.str().size() + 1 + last.size() <= 100)
        out << row.str() << " " << last << "\n";
      else if (3 + last.size() <= 100)
        out << row.str() << "\n   " << last << "\n";
      else
        out << row.str() << "\n   " << (trailing.empty() ? "0" : trailing) << ",\n   "
            << tensorPart << "\n";
    }
    out << "};\n\n";
  }

}

/// tta_library: the descriptor the runtime takes, pointing at every table.
void writeLibrary(std::ostream &out, const Library &library, const CodegenPlan &plan,
                  const StringTable &strings, const TensorMapTable &tensorMaps) {
  const std::string blobName = blobSymbol(library);
  std::size_t slots = 0;
  for (const RuntimeEntry &entry : plan.entries)
    slots += entry.rows.size();
  out << "static void *tta_state; /* the runtime's: per-device modules and functions */\n"
      << "static const triton_aot_library tta_library = {\n"
      << "  .name = " << cStringLiteral(library.name) << ",\n"
      << "  .prefix = " << cStringLiteral(library.prefix) << ",\n"
      << "  .blob = " << (library.images.empty() ? "NULL" : blobName) << ",\n"
      << "  .strings = " << (strings.empty() ? "NULL" : "tta_strings") << ",\n"
      << "  .target_count = " << plan.targets.size() << ",\n"
      << "  .targets = " << (plan.targets.empty() ? "NULL" : "tta_targets") << ",\n"
      << "  .image_count = " << library.images.size() << ",\n"
      << "  .images = " << (library.images.empty() ? "NULL" : "tta_images") << ",\n"
      << "  .kernel_count = " << plan.entries.size() << ",\n"
      << "  .kernels = " << (plan.entries.empty() ? "NULL" : "tta_kernels") << ",\n"
      << "  .slot_count = " << slots << ",\n"
      << "  .state = &tta_state,\n"
      << "  .tensor_maps = " << (tensorMaps.empty() ? "NULL" : "tta_tensor_maps") << ",\n"
      << "};\n\n";
}

void writeTables(std::ostream &out, const Library &library, const CodegenPlan &plan,
                 const ImageBlob &blob, StringTable &strings) {
  TensorMapTable tensorMaps;
  writeTargetTable(out, plan);
  writeImageTable(out, library, blob);
  for (std::size_t k = 0; k < library.kernels.size(); ++k)
    writeKernelRows(out, library.kernels[k], plan.kernels[k], plan, strings, tensorMaps);
  writeKernelTable(out, library, plan);
  tensorMaps.write(out);
  writeLibrary(out, library, plan, strings, tensorMaps);
}

void writeHelpers(std::ostream &out, const Used &used) {
  if (used.grid.cdiv)
    out << "static inline int64_t tta_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }\n";
  if (used.grid.min)
    out << "static inline int64_t tta_min(int64_t a, int64_t b) { return a < b ? a : b; }\n";
  if (used.grid.max)
    out << "static inline int64_t tta_max(int64_t a, int64_t b) { return a > b ? a : b; }\n";
  if (used.grid.cdiv || used.grid.min || used.grid.max)
    out << "\n";
  for (const std::string &helper : used.heuristicHelpers)
    out << heuristicHelperDefinition(helper) << "\n";
  if (used.invalid)
    out << "static triton_aot_status tta_invalid(const char *message) {\n"
           "  return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT, \"%s\", message);\n"
           "}\n\n";
  if (used.launch || used.launchTensors)
    out << "/* The grid as the runtime takes it, or why not; *empty when a dimension is 0 (an\n"
           " * empty grid launches nothing and succeeds). */\n"
           "static triton_aot_status tta_grid(uint32_t kernel, const int64_t grid[3],\n"
           "                                  uint64_t dims[3], int *empty) {\n"
           "  int axis;\n"
           "  for (axis = 0; axis < 3; ++axis) {\n"
           "    if (grid[axis] < 0)\n"
           "      return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,\n"
           "                             \"%s: grid %c is %lld; it must not be negative\",\n"
           "                             tta_kernels[kernel].name, \"xyz\"[axis], (long "
           "long)grid[axis]);\n"
           "    dims[axis] = (uint64_t)grid[axis];\n"
           "  }\n"
           "  *empty = dims[0] == 0 || dims[1] == 0 || dims[2] == 0;\n"
           "  if (*empty)\n"
           "    triton_aot_clear_error();\n"
           "  return TRITON_AOT_SUCCESS;\n"
           "}\n\n";
  if (used.launch)
    out << "/* Launches a variant of tta_kernels[kernel]; an empty grid launches nothing. */\n"
           "static triton_aot_status tta_launch(uint32_t kernel, uint32_t variant, void *stream,\n"
           "                                    const int64_t grid[3], void **args) {\n"
           "  uint64_t dims[3];\n"
           "  int empty = 0;\n"
           "  const triton_aot_status status = tta_grid(kernel, grid, dims, &empty);\n"
           "  if (status != TRITON_AOT_SUCCESS || empty)\n"
           "    return status;\n"
           "  return triton_aot_launch(&tta_library, kernel, variant, stream, dims, args);\n"
           "}\n\n";
  if (used.launchTensors)
    out << "/* tta_launch for a kernel with host tensor descriptors: the runtime encodes each\n"
           " * into `storage` for the function it chooses, and fills their argument slots. */\n"
           "static triton_aot_status tta_launch_tensors(uint32_t kernel, uint32_t variant,\n"
           "                                            void *stream, const int64_t grid[3],\n"
           "                                            void **args,\n"
           "                                            const triton_aot_tensor_arg *tensors,\n"
           "                                            triton_aot_tensor_storage *storage) {\n"
           "  uint64_t dims[3];\n"
           "  int empty = 0;\n"
           "  const triton_aot_status status = tta_grid(kernel, grid, dims, &empty);\n"
           "  if (status != TRITON_AOT_SUCCESS || empty)\n"
           "    return status;\n"
           "  return triton_aot_launch_tensors(&tta_library, kernel, variant, stream, dims, args,\n"
           "                                   tensors, storage);\n"
           "}\n\n";
}

/// <api>_config_argv(stream, config, grid, args): every runtime parameter by address, for callers
/// that know the parameters only at run time (triton-aot-tune, from the manifest).
void writeArgvEntry(std::ostream &out, const Kernel &kernel, const KernelPlan &kp) {
  std::vector<std::string> forwarded = {kp.stream, kp.config};
  if (!kernel.grid)
    forwarded.insert(forwarded.end(), {"tta_grid[0]", "tta_grid[1]", "tta_grid[2]"});
  for (std::size_t p = 0; p < kernel.cParams.size(); ++p) {
    const std::string &type = kernel.cParams[p].cType;
    forwarded.push_back("*(" + type + (isPointer(kernel.cParams[p]) ? "const *" : " const *") +
                        ")tta_args[" + std::to_string(p) + "]");
  }
  out << wrapCall("triton_aot_status " + kp.api + "_config_argv",
                  {"void *" + kp.stream, "int " + kp.config, "const uint32_t *tta_grid",
                   "void *const *tta_args"},
                  " {\n");
  if (kernel.grid)
    out << "  (void)tta_grid; /* the kernel computes its grid */\n";
  else
    out << "  if (tta_grid == NULL)\n"
        << "    return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,\n"
        << "                           "
        << wrappedStringLiteral(kp.api + "_config_argv: the kernel takes its grid from the caller; "
                                         "pass three uint32_t",
                                27, 27, 2)
        << ");\n";
  if (kernel.cParams.empty())
    out << "  (void)tta_args;\n";
  out << wrapCall("  return " + kp.statics + "_dispatch", forwarded, ";\n}\n");
}

void writeApi(std::ostream &out, const Library &library, const CodegenPlan &plan,
              const ImageBlob &blob, StringTable &strings) {
  for (std::size_t k = 0; k < library.kernels.size(); ++k) {
    const Kernel &kernel = library.kernels[k];
    const KernelPlan &kp = plan.kernels[k];
    std::vector<std::string> forwarded = {kp.stream, "0"};
    if (!kernel.grid)
      forwarded.insert(forwarded.end(), {kp.gridX, kp.gridY, kp.gridZ});
    for (const std::string &name : kp.params)
      forwarded.push_back(name);
    const std::string dispatch = kp.statics + "_dispatch";
    if (kernel.tuning) {
      // The device's target picks the table; the key's values pick the config.
      writeTunedConfig(out, kernel, kp);
      const std::string entry = std::to_string(kp.entries.front());
      forwarded[1] = "tta_config";
      out << wrapCall("triton_aot_status " + kp.api, apiParameters(kernel, kp, false), " {\n")
          << "  const int tta_target = triton_aot_kernel_target(&tta_library, " << entry << ");\n"
          << wrapCall("  const int tta_config = " + kp.statics + "_tuned_config",
                      tunedConfigCall(kernel, kp), ";\n")
          << "  triton_aot_log_tuned(&tta_library, " << entry << ", tta_target, tta_config,\n"
          << "                       " << kp.api << "_config_name(tta_config));\n"
          << wrapCall("  return " + dispatch, forwarded, ";\n}\n");
    } else {
      out << wrapCall("triton_aot_status " + kp.api, apiParameters(kernel, kp, false), " {\n")
          << wrapCall("  return " + dispatch, forwarded, ";\n}\n");
    }
    forwarded[1] = kp.config;
    out << wrapCall("triton_aot_status " + kp.api + "_config", apiParameters(kernel, kp, true),
                    " {\n")
        << wrapCall("  return " + dispatch, forwarded, ";\n}\n");
    writeArgvEntry(out, kernel, kp);
    writeSelectConfig(out, kernel, kp);
    out << "int " << kp.api << "_config_count(void) { return " << kernel.configs.size() << "; }\n";
    out << "const char *" << kp.api << "_config_name(int config) {\n";
    if (kernel.configs.empty()) {
      out << "  (void)config;\n  return NULL;\n}\n\n";
      continue;
    }
    std::vector<std::string> offsets;
    for (const KernelConfig &config : kernel.configs)
      offsets.push_back(std::to_string(strings.add(config.name)));
    out << wrapList("  static const uint32_t names[] = ", "{", offsets, "}", ";\n")
        << "  return config >= 0 && config < " << kernel.configs.size()
        << " ? tta_strings + names[config] : NULL;\n}\n\n";
  }

  const std::string &p = library.prefix;
  // Texts in the blob (or "" where none was appended: the codegen tests' bare blobs).
  auto blobText = [&](std::uint64_t offset, std::uint64_t size) {
    return holdsText(blob, offset, size)
               ? "(const char *)(" + blobSymbol(library) + " + " + std::to_string(offset) + ")"
               : std::string("\"\"");
  };
  out << "triton_aot_status " << p
      << "_preload(void) { return triton_aot_preload(&tta_library); }\n"
      << "triton_aot_status " << p << "_unload(void) { return triton_aot_unload(&tta_library); }\n"
      << "const char *" << p << "_version(void) { return \"" TRITON_AOT_VERSION "\"; }\n"
      << "const char *" << p << "_manifest(void) { return "
      << blobText(blob.manifestOffset, blob.manifestSize) << "; }\n"
      << "const char *" << p << "_inventory(void) { return "
      << blobText(blob.inventoryOffset, blob.inventorySize) << "; }\n"
      << "const char *" << p << "_last_error(void) { return triton_aot_last_error(); }\n"
      << "void " << p << "_set_allocator(const triton_aot_allocator *allocator) {\n"
      << "  triton_aot_set_allocator(allocator);\n}\n";
}

} // namespace

std::string generateSource(const Library &library, const CodegenPlan &plan, const ImageBlob &blob) {
  Used used;
  std::ostringstream dispatchers;
  for (std::size_t k = 0; k < library.kernels.size(); ++k)
    DispatcherWriter(library, plan, k, used).write(dispatchers);

  bool anyBool = false;
  for (const Kernel &kernel : library.kernels)
    for (const CParam &param : kernel.cParams)
      anyBool = anyBool || param.cType == "bool";

  std::ostringstream out;
  out << "/* " << commentText(library.name)
      << ".c: dispatchers and descriptor tables of the triton-aot library "
      << commentText(cStringLiteral(library.name)) << ",\n"
      << " * generated by triton-aot-ld " TRITON_AOT_VERSION " (do not edit). The tables follow\n"
      << " * <triton_aot/runtime.h>; the runtime chooses the image for the device and launches. "
         "*/\n"
      << (anyTuned(library) ? "#include <string.h>\n" : "")
      << "#include <triton_aot/runtime.h>\n"
      << "#include \"" << library.name << ".h\"\n\n";
  if (anyBool)
    out << "_Static_assert(sizeof(bool) == 1, \"i1 arguments are passed as 1-byte bool\");\n\n";
  out << "/* " << commentText(library.name) << ".images, by " << commentText(library.name)
      << ".images.S: the images at the offsets below, then the manifest. */\n"
      << "TRITON_AOT_HIDDEN extern const unsigned char " << blobSymbol(library) << "[];\n\n";
  // The tables and the API add to the string table, which must come before both.
  StringTable strings;
  std::ostringstream tables, api;
  writeTables(tables, library, plan, blob, strings);
  writeApi(api, library, plan, blob, strings);
  strings.write(out);
  out << tables.str();
  writeHelpers(out, used);
  if (anyTuned(library))
    writeSnapHelper(out);
  out << dispatchers.str() << api.str();
  return out.str();
}

} // namespace tta::link
