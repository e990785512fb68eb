// The tuned shape dispatch in <lib>.c (docs/tuning.md): per tuned kernel, its tables and
// tta_<K>_tuned_config(), which p_K calls; and p_K_select_config() for every kernel.
#include "linker/c_text.h"
#include "linker/codegen_parts.h"

#include <cstdio>

namespace tta::link {

namespace {

std::string doubleLiteral(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  std::string out = text;
  if (out.find_first_of(".en") == std::string::npos)
    out += ".0";
  return out;
}

std::string keyName(std::size_t d) { return "tta_key" + std::to_string(d); }

std::vector<std::string> keyParameters(const Kernel &kernel) {
  std::vector<std::string> out;
  for (std::size_t d = 0; d < kernel.tuning->keyParams.size(); ++d)
    out.push_back("int64_t " + keyName(d));
  return out;
}

} // namespace

bool anyTuned(const Library &library) {
  for (const Kernel &kernel : library.kernels)
    if (kernel.tuning)
      return true;
  return false;
}

void writeSnapHelper(std::ostream &out) {
  out << "/* Tuned dispatch: the position of x among a key dimension's tuned values, given the\n"
         " * n boundaries between them (the geometric means: the nearest value in log space). */\n"
         "static size_t tta_snap(double x, const double *boundaries, size_t n) {\n"
         "  size_t i = 0;\n"
         "  while (i < n && !(x < boundaries[i]))\n"
         "    ++i;\n"
         "  return i;\n"
         "}\n\n";
}

void writeTunedConfig(std::ostream &out, const Kernel &kernel, const KernelPlan &kp) {
  const KernelTuning &tuning = *kernel.tuning;
  std::string keys;
  for (std::size_t p : tuning.keyParams)
    keys += (keys.empty() ? "" : ", ") + kernel.cParams[p].name;
  out << "/* " << commentText(kernel.name) << ": tuned dispatch on (" << commentText(keys)
      << "), from " << commentText(tuning.table) << " */\n";
  const std::string fn = kp.statics + "_tuned_config";
  std::vector<std::string> params = {"int tta_target"};
  for (const std::string &p : keyParameters(kernel))
    params.push_back(p);
  out << wrapCall("static int " + fn, params, " {\n");
  bool any = false;
  for (std::size_t t = 0; t < tuning.targets.size(); ++t) {
    if (!tuning.targets[t])
      continue;
    const KernelTuning::TargetDispatch &d = *tuning.targets[t];
    any = true;
    out << "  /* " << commentText(kernel.targets[t].spelling()) << ": " << d.shapes
        << " shapes tuned on " << commentText(d.device.empty() ? "?" : d.device) << " */\n";
    for (std::size_t k = 0; k < d.boundaries.size(); ++k) {
      if (d.boundaries[k].empty())
        continue;
      std::vector<std::string> items;
      for (double b : d.boundaries[k])
        items.push_back(doubleLiteral(b));
      out << wrapList("  static const double tta_t" + std::to_string(t) + "_bounds" + std::to_string(k) +
                          "[" + std::to_string(items.size()) + "] = ",
                      "{", items, "}", ";\n");
    }
    std::vector<std::string> cells;
    for (int config : d.grid)
      cells.push_back(std::to_string(config));
    out << wrapList("  static const uint16_t tta_t" + std::to_string(t) + "_grid[" +
                        std::to_string(cells.size()) + "] = ",
                    "{", cells, "}", ";\n");
  }
  if (!any) {
    out << "  (void)tta_target;\n";
    for (std::size_t k = 0; k < tuning.keyParams.size(); ++k)
      out << "  (void)" << keyName(k) << ";\n";
    out << "  return -1; /* no target is tuned */\n}\n\n";
    return;
  }
  out << "  size_t tta_cell = 0;\n  switch (tta_target) {\n";
  for (std::size_t t = 0; t < tuning.targets.size(); ++t) {
    if (!tuning.targets[t])
      continue;
    const KernelTuning::TargetDispatch &d = *tuning.targets[t];
    out << "  case " << t << ":\n";
    for (std::size_t k = 0; k < d.values.size(); ++k) {
      if (d.boundaries[k].empty()) {
        out << "    (void)" << keyName(k) << "; /* one tuned value */\n";
        continue;
      }
      out << "    tta_cell = tta_cell * " << d.values[k].size() << " + tta_snap((double)"
          << keyName(k) << ", tta_t" << t << "_bounds" << k << ", " << d.boundaries[k].size()
          << ");\n";
    }
    out << "    return tta_t" << t << "_grid[tta_cell];\n";
  }
  out << "  default: /* untuned here (or no image): the caller runs the first config */\n";
  for (std::size_t k = 0; k < tuning.keyParams.size(); ++k)
    out << "    (void)" << keyName(k) << ";\n";
  out << "    return -1;\n  }\n}\n\n";
}

void writeSelectConfig(std::ostream &out, const Kernel &kernel, const KernelPlan &kp) {
  std::vector<std::string> params = selectConfigParameters(kernel, kp);
  params[0] = "const char *tta_target";   // "target" may be a parameter's name
  out << wrapCall("int " + kp.api + "_select_config", params, " {\n");
  std::vector<bool> used(kernel.cParams.size(), false);
  if (kernel.tuning)
    for (std::size_t p : kernel.tuning->keyParams)
      used[p] = true;
  auto unused = [&] {
    for (std::size_t p = 0; p < kernel.cParams.size(); ++p)
      if (!used[p])
        out << "  (void)" << kp.params[p] << ";\n";
  };
  if (!kernel.tuning) {
    unused();
    out << "  (void)tta_target;\n  return 0; /* not tuned: the first config */\n}\n\n";
    return;
  }
  std::vector<std::string> spellings;
  for (const Target &target : kernel.targets)
    spellings.push_back(cStringLiteral(target.spelling()));
  const std::vector<std::string> forwarded = tunedConfigCall(kernel, kp, "tta_t");
  out << wrapList("  static const char *const tta_targets[" + std::to_string(spellings.size()) +
                      "] = ",
                  "{", spellings, "}", ";\n")
      << "  int tta_t;\n";
  unused();
  out
      << "  for (tta_t = 0; tta_t < " << spellings.size() << "; ++tta_t)   /* none: tta_t is past the end */\n"
      << "    if (tta_target != NULL && strcmp(tta_target, tta_targets[tta_t]) == 0)\n"
      << "      break;\n"
      << wrapCall("  const int tta_tuned = " + kp.statics + "_tuned_config", forwarded, ";\n")
      << "  return tta_tuned < 0 ? 0 : tta_tuned; /* untuned or unknown target: the first */\n}\n\n";
}

std::vector<std::string> tunedConfigCall(const Kernel &kernel, const KernelPlan &kp,
                                         const std::string &target) {
  std::vector<std::string> forwarded = {target};
  for (std::size_t p : kernel.tuning->keyParams)
    forwarded.push_back("(int64_t)" + kp.params[p]);
  return forwarded;
}

} // namespace tta::link
