// checkRecord (compiler/remote/remote_entry.h): a remote cache entry's record as a server returns
// it, checked unsigned and signed, under the key the seeds use.
#include "compiler/remote/remote_entry.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  static const std::string key(64, 'a');
  std::string_view text = tta::fuzz::asText(data, size);
  (void)tta::remote::checkRecord(text, key, "", 1 << 20);
  (void)tta::remote::checkRecord(text, key, "secret", 1 << 20);
  return 0;
}
