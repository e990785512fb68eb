// parseSignature / parseConstexpr (compiler/signature.h): -s and spec-file signatures. A signature
// that parses formats to text that parses again.
#include "compiler/signature.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::string_view text = tta::fuzz::asText(data, size);
  if (auto signature = tta::parseSignature(text)) {
    auto again = tta::parseSignature(tta::formatSignature(*signature));
    if (!again)
      __builtin_trap();
  }
  if (auto value = tta::parseConstexpr(text))
    (void)tta::formatConstexpr(*value);
  return 0;
}
