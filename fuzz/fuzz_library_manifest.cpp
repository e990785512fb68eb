// parseLibraryManifest (contract/library_manifest.h): a library's manifest, the one reader
// behind triton-aot-ld --inspect, triton-aot-tune (the manifest a built library returns) and
// readLibraryKernel (tuner/import/library_kernel.h, the Triton autotune-cache import).
#include "contract/library_manifest.h"
#include "fuzz/fuzz_input.h"
#include "tuner/import/library_kernel.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  auto manifest = tta::parseLibraryManifest(tta::fuzz::asText(data, size), "fuzzed.json");
  if (!manifest)
    return 0;
  nlohmann::json json = tta::fuzz::asJson(data, size);
  for (const tta::ManifestKernel &kernel : manifest->kernels) {
    if (tta::findKernel(*manifest, kernel.name) == nullptr)
      __builtin_trap();
    for (const std::string &target : kernel.targets)
      (void)tta::readLibraryKernel(json, kernel.name, target, {});
  }
  return 0;
}
