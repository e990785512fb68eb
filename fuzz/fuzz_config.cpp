// parseConfig (compiler/config.h): -c / spec-file configs ("BLOCK=64,num_warps=4,name=big").
// A config that parses formats to text that parses again.
#include "compiler/config.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (auto config = tta::parseConfig(tta::fuzz::asText(data, size))) {
    if (!tta::parseConfig(tta::formatConfig(*config)))
      __builtin_trap();
  }
  return 0;
}
