#include "contract/sha256.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/SHA256.h>

namespace tta {

std::string sha256Hex(std::string_view bytes) {
  auto digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(llvm::StringRef(bytes)));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

} // namespace tta
