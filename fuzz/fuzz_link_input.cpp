// The linker's inputs (linker/link_input.h buildLibrary): the fuzzed file, read from a path (a
// scratch file), is linked after fixed.json, a valid metadata file of the seeds, so that reading,
// the image checks and the grouping of two variants of one kernel are all reached. The scratch
// directory holds the images the seeds name: k.cubin and k.ptx (tests/data/images). The fuzzed
// file may also be a compiler --index file naming files beside it ("fixed.json", "input.json").
#include "fuzz/fuzz_input.h"
#include "linker/link_input.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  static const fs::path fixed = [] {
    const fs::path source = TRITON_AOT_SOURCE_DIR;
    const fs::path &dir = tta::fuzz::scratchDir();
    std::error_code ec;
    fs::copy_file(source / "tests/data/images/kernels.sm_90a.cubin", dir / "k.cubin",
                  fs::copy_options::overwrite_existing, ec);
    fs::copy_file(source / "tests/data/images/kernels.ptx", dir / "k.ptx",
                  fs::copy_options::overwrite_existing, ec);
    fs::copy_file(source / "fuzz/corpus/fuzz_link_input/fixed.json", dir / "fixed.json",
                  fs::copy_options::overwrite_existing, ec);
    return dir / "fixed.json";
  }();
  tta::link::LinkOptions options;
  options.name = "fuzzed";
  options.outputDir = tta::fuzz::scratchDir();
  options.inputs = {fixed.string(), tta::fuzz::writeInput(data, size, "input.json").string()};
  (void)tta::link::buildLibrary(options, [](std::string_view) {});
  return 0;
}
