// parseTuningSpec (tuner/tuning_spec.h): a triton-aot-tune spec (key, shapes, argument and grid
// expressions), then each argument expression evaluated at each shape.
#include "fuzz/fuzz_input.h"
#include "tuner/tuning_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  nlohmann::json json = tta::fuzz::asJson(data, size);
  if (json.is_discarded())
    return 0;
  auto spec = tta::tune::parseTuningSpec(json, "fuzzed.tune.json");
  if (!spec)
    return 0;
  for (const tta::tune::KernelSpec &kernel : spec->kernels)
    for (const std::vector<std::int64_t> &shape : kernel.shapes) {
      tta::tune::ExprNames names;
      for (std::size_t i = 0; i < kernel.key.size() && i < shape.size(); ++i)
        names[kernel.key[i]] = shape[i];
      for (const tta::tune::SpecArg &arg : kernel.args) {
        tta::tune::ExprValue value;
        tta::tune::ExprError error;
        (void)arg.expression.evaluate(names, value, error);
      }
    }
  return 0;
}
