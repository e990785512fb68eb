// parseLibraryManifest (contract/library_manifest.h) through inspectManifestText
// (linker/inspect.h): a library's <lib>.json manifest, as triton-aot-ld --inspect and the
// embedded inventory read it.
#include "fuzz/fuzz_input.h"
#include "linker/inspect.h"
#include "linker/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  (void)tta::link::inspectManifestText(tta::fuzz::asText(data, size));
  return 0;
}
