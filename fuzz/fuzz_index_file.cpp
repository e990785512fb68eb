// parseIndex (contract/index_file.h): the --index file triton-aot-cc writes and triton-aot-ld
// reads in place of the metadata files it lists. What parses is written back with toJson and
// must parse again to the same index.
#include "contract/index_file.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  nlohmann::json json = tta::fuzz::asJson(data, size);
  if (json.is_discarded())
    return 0;
  if (auto index = tta::parseIndex(json)) {
    auto again = tta::parseIndex(tta::toJson(*index));
    if (!again || !(*again == *index))
      __builtin_trap();
  }
  return 0;
}
