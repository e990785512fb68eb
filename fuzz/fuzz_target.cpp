// parseTarget (contract/target.h): --target spellings ("90a", "cuda:80", "gfx90a:xnack-").
#include "contract/target.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (auto target = tta::parseTarget(tta::fuzz::asText(data, size))) {
    (void)target->fileTag();
    auto again = tta::parseTarget(target->spelling());
    if (!again || !(*again == *target))
      __builtin_trap();
  }
  return 0;
}
