// parseRefusal (contract/metadata.h): the record triton-aot-cc writes where a target cannot
// build a config, read by triton-aot-ld in place of that variant's metadata. What parses is
// written back with toJson and must parse again to the same record.
#include "contract/metadata.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  nlohmann::json json = tta::fuzz::asJson(data, size);
  if (json.is_discarded())
    return 0;
  if (auto record = tta::parseRefusal(json)) {
    auto again = tta::parseRefusal(tta::toJson(*record));
    if (!again || !(*again == *record))
      __builtin_trap();
  }
  return 0;
}
