// parseMetadata (contract/metadata.h): the strict reader of a kernel's metadata file
// ("triton-aot-kernel"). What parses is written back with toJson and must parse again.
#include "contract/metadata.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  nlohmann::json json = tta::fuzz::asJson(data, size);
  if (json.is_discarded())
    return 0;
  if (auto meta = tta::parseMetadata(json)) {
    if (!tta::parseMetadata(tta::toJson(*meta)))
      __builtin_trap();
  }
  return 0;
}
