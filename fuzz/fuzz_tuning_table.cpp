// parseTuningTable (contract/tuning_table.h): a tuning table, then what the linker computes from
// it (shapeDispatch, dispatchedConfig) and a merge of the table into itself. A table that parses
// is written back with tuningTableJson and must parse again.
#include "contract/tuning_table.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  nlohmann::json json = tta::fuzz::asJson(data, size);
  if (json.is_discarded())
    return 0;
  auto table = tta::parseTuningTable(json, "fuzzed.tuning.json");
  if (!table)
    return 0;
  if (!tta::parseTuningTable(tta::tuningTableJson(*table), "again"))
    __builtin_trap();
  for (const tta::TunedKernel &kernel : table->kernels)
    for (const tta::TunedTarget &target : kernel.targets) {
      auto dispatch = tta::shapeDispatch(target, kernel.key.size());
      if (!dispatch)
        continue;
      for (const tta::TunedShape &shape : target.shapes)
        (void)tta::dispatchedConfig(*dispatch, shape.key);
    }
  tta::TuningTable merged = *table;
  (void)tta::mergeTuningTables(merged, *table);
  return 0;
}
