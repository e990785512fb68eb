// parseLibraryManifest (tuner/kernel_library.h): the manifest a built library returns, as
// triton-aot-tune reads it, and readLibraryKernel (tuner/import/library_kernel.h): the same
// manifest as the Triton autotune-cache import reads it.
#include "fuzz/fuzz_input.h"
#include "tuner/import/library_kernel.h"
#include "tuner/kernel_library.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  auto manifest = tta::tune::parseLibraryManifest(tta::fuzz::asText(data, size), "fuzzed.json");
  if (!manifest)
    return 0;
  nlohmann::json json = tta::fuzz::asJson(data, size);
  for (const tta::tune::ManifestKernel &kernel : manifest->kernels) {
    (void)tta::tune::findKernel(*manifest, kernel.name);
    (void)tta::readLibraryKernel(json, kernel.name, "90a", {});
  }
  return 0;
}
