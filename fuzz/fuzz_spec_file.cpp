// loadSpecFile (compiler/options.h): a --spec JSON file. It reads a path, so each input is
// written to a scratch file first.
#include "compiler/options.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  static const std::vector<tta::Target> defaults = [] {
    auto target = tta::parseTarget("90a");
    return target ? std::vector<tta::Target>{*target} : std::vector<tta::Target>{};
  }();
  (void)tta::loadSpecFile(tta::fuzz::writeInput(data, size, "spec.json").string(), defaults);
  return 0;
}
