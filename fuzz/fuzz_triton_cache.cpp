// parseTritonAutotuneCache (tuner/import/triton_cache_file.h): one file of Triton's own autotune
// cache (Python's json.dumps, with Infinity and NaN), as --import-triton-cache reads it.
#include "fuzz/fuzz_input.h"
#include "tuner/import/triton_cache_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  (void)tta::parseTritonAutotuneCache(std::string(tta::fuzz::asText(data, size)), "fuzzed.autotune.json");
  return 0;
}
