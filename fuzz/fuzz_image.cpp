// inspectImage (contract/image_info.h): an ELF device image (cubin, HSACO) read with LLVM's
// Object library, then checked against a CUDA and a HIP target. Also inspectFile
// (linker/inspect.h), which sorts a path into manifest, metadata or image.
#include "contract/image_info.h"
#include "fuzz/fuzz_input.h"
#include "linker/inspect.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  static const std::vector<tta::Target> targets = [] {
    std::vector<tta::Target> out;
    for (const char *spelling : {"90a", "80", "gfx942", "gfx90a:xnack-"})
      if (auto target = tta::parseTarget(spelling))
        out.push_back(*target);
    return out;
  }();
  if (auto info = tta::inspectImage(std::span(data, size)))
    for (const tta::Target &target : targets)
      (void)tta::checkImageMatchesTarget(*info, target);
  (void)tta::link::inspectFile(tta::fuzz::writeInput(data, size, "image.bin"));
  return 0;
}
