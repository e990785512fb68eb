// <lib>.c's dispatchers: one per kernel, config -> hint variant (and heuristic values) -> grid
// -> tta_launch() / tta_launch_tensors() (codegen_source.cpp writes the tables and helpers they
// call).
#include "linker/c_text.h"
#include "linker/codegen_parts.h"
#include "linker/grid_codegen.h"
#include "linker/link_group.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace tta::link {

namespace {

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


std::map<std::string, std::string, std::less<>>
gridNames(const Kernel &kernel, const KernelPlan &plan, const KernelConfig *config) {
  std::map<std::string, std::string, std::less<>> names;
  for (const std::string &name : kernel.oneOnly)
    names[name] = "INT64_C(1)";
  if (config)
    for (const auto &[name, value] : config->constexprs)
      names[name] = constexprLiteral(value).value_or("tta_constexpr_" + name + "_is_not_a_number");
  // No grid names a tensor descriptor's parts (checkGridNames). A heuristic input is the
  // caller's value; the grid reads the value computed from it (the variant's constexpr: a grid
  // that names it is computed per variant).
  for (std::size_t p = 0; p < kernel.cParams.size(); ++p)
    if (!isTensorPart(kernel.cParams[p]) && !kernel.cParams[p].heuristicInput)
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

class DispatcherWriter {
public:
  DispatcherWriter(const Library &library, const CodegenPlan &plan, std::size_t k, DispatcherNeeds &used)
      : plan_(plan), kernel_(library.kernels[k]), kp_(plan.kernels[k]), used_(used) {}

  void write(std::ostream &out) {
    const bool split = kp_.entries.size() > 1;
    std::vector<std::string> params = apiParameters(kernel_, kp_, true);
    // A tuned kernel's entry has asked the runtime for the device's target, and with it the
    // context: its launch takes that place instead of asking again (NULL: ask).
    const bool tuned = static_cast<bool>(kernel_.tuning);
    if (tuned)
      params.insert(params.begin() + 2, "const triton_aot_place *tta_place");
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
    writeHintFacts(out);
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
    if (tuned)
      (bases.empty() ? used_.launchAt : used_.launchTensorsAt) = true;
    else
      (bases.empty() ? used_.launch : used_.launchTensors) = true;
    const std::string tail = bases.empty() ? ");\n}\n\n" : ", tta_tensors, tta_storage);\n}\n\n";
    const std::string call = std::string("  return tta_launch") + (bases.empty() ? "" : "_tensors") +
                             (tuned ? "_at(" : "(");
    const std::string place = tuned ? "tta_place, " : "";
    if (split)
      out << call << kp_.entry << ", " << kp_.variant << ", " << place << kp_.stream << ", "
          << kp_.grid << ", " << kp_.args << tail;
    else
      out << call << kp_.entries.front() << ", " << kp_.variant << ", " << place << kp_.stream
          << ", " << kp_.grid << ", " << plan_.entries[kp_.entries.front()].argsName << tail;
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
      else if (!kernel_.cParams[p].heuristicInput)   // never passed
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
      if (!factBits_.empty()) {
        std::uint64_t mask = 0;
        for (std::size_t p = 0; p < hints.size() && p < kernel_.cParams.size(); ++p)
          if (hints[p] != 0)
            mask |= std::uint64_t{1} << factBits_.at({p, hints[p]});
        if (mask)
          tests.push_back("(tta_hints & " + hexConstant(mask) + ") == " + hexConstant(mask));
      } else {
        for (std::size_t p = 0; p < hints.size() && p < kernel_.cParams.size(); ++p)
          if (hints[p] != 0)
            tests.push_back(hintTest(kernel_.cParams[p], kp_.params[p], hints[p], false));
      }
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
      auto resolve = heuristicResolver(kernel_, {}, constexprs, h.name);
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
    auto text = emitHeuristicC(*expr, heuristicResolver(kernel_, kp_.params, constexprs, h.name),
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
  DispatcherNeeds &used_;
  bool perVariantGrid_ = false;   ///< the grid reads a heuristic decided at launch
  /// (parameter, hint) -> its bit in tta_hints; empty: each variant tests its hints itself
  std::map<std::pair<std::size_t, int>, int> factBits_;

  static std::string hexConstant(std::uint64_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "UINT64_C(0x%llx)", static_cast<unsigned long long>(value));
    return text;
  }

  /// A config of many hint variants (--specialize-for gives one per call) tests each argument's
  /// hints once, into one bit each of tta_hints, and each variant with one mask: the choice
  /// takes time linear in the parameters and the variants, not their product. A few variants,
  /// or more than 64 distinct hints, keep the plain tests.
  void writeHintFacts(std::ostream &out) {
    std::size_t most = 0;
    for (const KernelConfig &config : kernel_.configs)
      most = std::max(most, config.variants.size());
    if (most < kManyVariants)
      return;
    std::map<std::pair<std::size_t, int>, int> bits;
    for (const KernelConfig &config : kernel_.configs)
      for (const HintVariant &variant : config.variants)
        for (std::size_t p = 0; p < variant.hints.size() && p < kernel_.cParams.size(); ++p)
          if (variant.hints[p] != 0)
            bits.emplace(std::make_pair(p, variant.hints[p]), 0);
    if (bits.empty() || bits.size() > 64)
      return;
    int next = 0;
    std::vector<std::string> terms;
    for (auto &[fact, bit] : bits) {
      bit = next++;
      terms.push_back("(" + hintTest(kernel_.cParams[fact.first], kp_.params[fact.first],
                                     fact.second, false) +
                      " ? " + hexConstant(std::uint64_t{1} << bit) + " : 0)");
    }
    out << "  /* the hints the arguments meet, a bit each; a variant asks for its own */\n"
        << "  const uint64_t tta_hints =\n      ";
    for (std::size_t t = 0; t < terms.size(); ++t)
      out << terms[t] << (t + 1 < terms.size() ? " |\n      " : ";\n");
    out << "  (void)tta_hints;   /* a config whose variants all ask for none */\n";
    factBits_ = std::move(bits);
  }
  static constexpr std::size_t kManyVariants = 5;
};


} // namespace

void writeDispatcher(std::ostream &out, const Library &library, const CodegenPlan &plan,
                     std::size_t k, DispatcherNeeds &used) {
  DispatcherWriter(library, plan, k, used).write(out);
}

} // namespace tta::link
