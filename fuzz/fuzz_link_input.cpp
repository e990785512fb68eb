// The linker's inputs (linker/link_input.h buildLibrary): a metadata file or a compiler --index
// file, read from a path (the input is written to a scratch file), checked and grouped into a
// library. An index names files beside it: "input.json" is the index itself.
#include "fuzz/fuzz_input.h"
#include "linker/link_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  tta::link::LinkOptions options;
  options.name = "fuzzed";
  options.outputDir = tta::fuzz::scratchDir();
  options.inputs = {tta::fuzz::writeInput(data, size, "input.json").string()};
  (void)tta::link::buildLibrary(options, [](std::string_view) {});
  return 0;
}
