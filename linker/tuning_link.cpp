#include "linker/tuning_link.h"

#include "contract/spelling.h"
#include "contract/tuning_table.h"

#include <algorithm>
#include <filesystem>

namespace tta::link {

namespace {

Diagnostic tableError(const std::string &table, const std::string &message,
                      std::vector<std::string> notes = {}) {
  Diagnostic diag = makeError(ExitCode::UsageError, message);
  diag.file = table;
  diag.notes = std::move(notes);
  return diag;
}

bool isIntegerType(const std::string &cType) {
  return cType.find("int") != std::string::npos && cType.back() != '*';
}

/// The C parameter of each key name, or an error naming the one that cannot be a key.
Expected<std::vector<std::size_t>> keyParams(const Kernel &kernel, const TunedKernel &tuned,
                                              const std::string &table) {
  std::vector<std::size_t> out;
  for (const std::string &name : tuned.key) {
    auto it = std::find_if(kernel.cParams.begin(), kernel.cParams.end(),
                           [&](const CParam &p) { return p.name == name && p.tensorPart == CParam::TensorPart::None; });
    if (it == kernel.cParams.end()) {
      std::vector<std::string> integers;
      for (const CParam &p : kernel.cParams)
        if (isIntegerType(p.cType) && p.tensorPart == CParam::TensorPart::None)
          integers.push_back(p.name);
      return tableError(table, "kernel '" + kernel.name + "' is tuned on '" + name +
                                   "', which is not one of its runtime parameters (a constexpr "
                                   "or a name it does not have)",
                        {"its integer runtime parameters: " +
                         (integers.empty() ? std::string("none") : joinNames(integers))});
    }
    if (!isIntegerType(it->cType))
      return tableError(table, "kernel '" + kernel.name + "' is tuned on '" + name + "', a " +
                                   it->tritonType +
                                   " parameter; the dispatch keys on integer parameters");
    out.push_back(static_cast<std::size_t>(it - kernel.cParams.begin()));
  }
  return out;
}

} // namespace

Status applyTuning(Library &library, const std::vector<std::string> &tables, const LogSink &log) {
  TuningTable merged;
  std::map<std::string, std::string> tableOf;   // kernel -> the (last) table naming it
  for (const std::string &path : tables) {
    auto table = readTuningTable(path);
    if (!table)
      return table.takeError();
    for (const TunedKernel &tuned : table->kernels)
      tableOf[tuned.kernel] = path;
    if (Status s = mergeTuningTables(merged, *table); !s) {
      Diagnostic diag = s.takeError();
      diag.file = path;
      return diag;
    }
  }
  for (const TunedKernel &tuned : merged.kernels) {
    const std::string &table = tableOf[tuned.kernel];
    auto kernel = std::find_if(library.kernels.begin(), library.kernels.end(),
                               [&](const Kernel &k) { return k.name == tuned.kernel; });
    if (kernel == library.kernels.end()) {
      std::vector<std::string> names;
      for (const Kernel &k : library.kernels)
        names.push_back(k.name);
      return tableError(table, "kernel '" + tuned.kernel + "' is tuned but not in the library",
                        {"the library's kernels: " + joinNames(names),
                         "remove it from the table, or link it"});
    }
    auto keys = keyParams(*kernel, tuned, table);
    if (!keys)
      return keys.takeError();
    KernelTuning tuning;
    tuning.keyParams = std::move(*keys);
    tuning.table = std::filesystem::path(table).filename().string();   // no build paths in outputs
    tuning.targets.resize(kernel->targets.size());
    for (const TunedTarget &target : tuned.targets) {
      auto slot = std::find_if(kernel->targets.begin(), kernel->targets.end(),
                               [&](const Target &t) { return t.spelling() == target.target; });
      if (slot == kernel->targets.end()) {
        if (log)
          log("warning: " + table + ": the tuning of '" + tuned.kernel + "' for " + target.target +
              " is not used: the library has no image of it for that target");
        continue;
      }
      auto dispatch = shapeDispatch(target, tuned.key.size());
      if (!dispatch)
        return tableError(table, "kernel '" + tuned.kernel + "': " + dispatch.error().message);
      KernelTuning::TargetDispatch out;
      out.values = std::move(dispatch->values);
      out.boundaries = std::move(dispatch->boundaries);
      out.device = target.device;
      out.shapes = target.shapes.size();
      for (const std::string &name : dispatch->grid) {
        auto config = std::find_if(kernel->configs.begin(), kernel->configs.end(),
                                   [&](const KernelConfig &c) { return c.name == name; });
        if (config == kernel->configs.end()) {
          std::vector<std::string> names;
          for (const KernelConfig &c : kernel->configs)
            names.push_back(c.name);
          return tableError(table, "kernel '" + tuned.kernel + "' is tuned to run config '" +
                                       name + "' on " + target.target +
                                       ", which the library does not have",
                            {"its configs: " + joinNames(names),
                             "the configs changed since it was tuned: tune it again"});
        }
        out.grid.push_back(static_cast<int>(config - kernel->configs.begin()));
      }
      tuning.targets[static_cast<std::size_t>(slot - kernel->targets.begin())] = std::move(out);
    }
    kernel->tuning = std::move(tuning);
  }
  return ok();
}

} // namespace tta::link
