#include "linker/codegen_plan.h"

#include <algorithm>
#include <set>

namespace tta::link {

namespace {

bool startsWith(const std::string &text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

/// Names <stddef.h>, <stdint.h> and <stdbool.h> define (types and macros) that are not already
/// C keywords (c_names.h takes care of those).
const std::set<std::string> &standardHeaderNames() {
  static const std::set<std::string> names = [] {
    std::set<std::string> out = {"NULL",           "offsetof",       "size_t",      "ptrdiff_t",
                                 "max_align_t",    "intptr_t",       "uintptr_t",   "intmax_t",
                                 "uintmax_t",      "INTPTR_MIN",     "INTPTR_MAX",  "UINTPTR_MAX",
                                 "INTMAX_MIN",     "INTMAX_MAX",     "UINTMAX_MAX", "INTMAX_C",
                                 "UINTMAX_C",      "PTRDIFF_MIN",    "PTRDIFF_MAX", "SIZE_MAX",
                                 "SIG_ATOMIC_MIN", "SIG_ATOMIC_MAX", "WCHAR_MIN",   "WCHAR_MAX",
                                 "WINT_MIN",       "WINT_MAX"};
    for (const char *bits : {"8", "16", "32", "64"}) {
      const std::string n = bits;
      for (const char *kind : {"", "_least", "_fast"}) {
        const std::string k = kind;
        std::string upper = k;
        std::transform(upper.begin(), upper.end(), upper.begin(),
                       [](char c) { return static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c); });
        out.insert("int" + k + n + "_t");
        out.insert("uint" + k + n + "_t");
        out.insert("INT" + upper + n + "_MIN");
        out.insert("INT" + upper + n + "_MAX");
        out.insert("UINT" + upper + n + "_MAX");
      }
      out.insert("INT" + n + "_C");
      out.insert("UINT" + n + "_C");
    }
    return out;
  }();
  return names;
}

/// \p base, or base with '_' appended until no name in \p taken equals it.
std::string uniqueName(std::string base, const std::set<std::string> &taken) {
  while (taken.count(base))
    base += '_';
  return base;
}

/// The C names of a kernel's parameters: cName, with a "_" added where it clashes with a name
/// the generated code needs; names the user wrote are kept, and escaped ones move on until
/// unique (a kernel may have both "int" and "int_").
std::vector<std::string> parameterNames(const Kernel &kernel) {
  std::vector<std::string> names(kernel.cParams.size());
  std::set<std::string> taken;
  std::vector<std::size_t> escaped;
  for (std::size_t i = 0; i < kernel.cParams.size(); ++i) {
    const CParam &param = kernel.cParams[i];
    if (param.cName == param.name && !clashesWithGeneratedNames(param.cName)) {
      names[i] = param.cName;
      taken.insert(param.cName);
    } else {
      escaped.push_back(i);
    }
  }
  for (std::size_t i : escaped) {
    const std::string &cName = kernel.cParams[i].cName;
    names[i] = uniqueName(clashesWithGeneratedNames(cName) ? cName + "_" : cName, taken);
    taken.insert(names[i]);
  }
  return names;
}

} // namespace

bool clashesWithGeneratedNames(const std::string &name) {
  return startsWith(name, "tta_") || startsWith(name, "triton_aot_") ||
         startsWith(name, "TRITON_AOT_") || standardHeaderNames().count(name) > 0;
}

std::string targetDisplayName(const Target &target) {
  return target.backend == Backend::Cuda ? "sm_" + target.arch : target.arch;
}

CodegenPlan planCodegen(const Library &library) {
  CodegenPlan plan;
  plan.kernels.reserve(library.kernels.size());
  std::uint32_t nextSlot = 0;
  for (std::size_t k = 0; k < library.kernels.size(); ++k) {
    const Kernel &kernel = library.kernels[k];
    KernelPlan kp;
    kp.api = library.prefix + "_" + kernel.name;
    kp.statics = "tta_" + kernel.name;
    kp.params = parameterNames(kernel);

    for (const Target &target : kernel.targets) {
      auto found = std::find(plan.targets.begin(), plan.targets.end(), target);
      if (found == plan.targets.end())
        found = plan.targets.insert(plan.targets.end(), target);
      kp.targets.push_back(static_cast<std::uint32_t>(found - plan.targets.begin()));
    }

    // Entries by argument list, in order of first use; rows config-major.
    kp.variants.resize(kernel.configs.size());
    for (std::size_t c = 0; c < kernel.configs.size(); ++c) {
      for (std::size_t v = 0; v < kernel.configs[c].variants.size(); ++v) {
        const std::vector<int> &hints = kernel.configs[c].variants[v].hints;
        std::vector<bool> passed(kernel.cParams.size(), true);
        for (std::size_t p = 0; p < passed.size() && p < hints.size(); ++p)
          passed[p] = hints[p] != 1 && !kernel.cParams[p].heuristicInput;
        std::size_t e = 0;
        while (e < kp.entries.size() && plan.entries[kp.entries[e]].passed != passed)
          ++e;
        if (e == kp.entries.size()) {
          RuntimeEntry entry;
          entry.kernel = k;
          entry.argCount =
              static_cast<std::uint32_t>(std::count(passed.begin(), passed.end(), true));
          entry.passed = std::move(passed);
          kp.entries.push_back(plan.entries.size());
          plan.entries.push_back(std::move(entry));
        }
        RuntimeEntry &entry = plan.entries[kp.entries[e]];
        kp.variants[c].push_back({kp.entries[e], static_cast<std::uint32_t>(entry.rows.size())});
        entry.rows.emplace_back(c, v);
      }
    }
    for (std::size_t e : kp.entries) {
      plan.entries[e].firstSlot = nextSlot;
      nextSlot += static_cast<std::uint32_t>(plan.entries[e].rows.size());
    }

    std::set<std::string> taken(kp.params.begin(), kp.params.end());
    auto local = [&](const char *base) {
      std::string name = uniqueName(base, taken);
      taken.insert(name);
      return name;
    };
    kp.stream = local("stream");
    kp.config = local("config");
    kp.grid = local("grid");
    kp.variant = local("variant");
    kp.entry = local("kernel");
    kp.args = local("args");
    kp.target = local("target");
    if (!kernel.grid) {
      kp.gridX = local("grid_x");
      kp.gridY = local("grid_y");
      kp.gridZ = local("grid_z");
    }
    if (kp.entries.size() == 1) {
      plan.entries[kp.entries.front()].argsName = kp.args;
    } else {
      for (std::size_t e = 0; e < kp.entries.size(); ++e)
        plan.entries[kp.entries[e]].argsName = local(("args" + std::to_string(e)).c_str());
    }
    plan.kernels.push_back(std::move(kp));
  }
  return plan;
}

} // namespace tta::link
