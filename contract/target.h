// GPU targets: "cuda:80", "cuda:90a", "cuda:100f", "cuda:80:32" (upstream's form, warp size
// given), "hip:gfx942", "hip:gfx90a:xnack-", "hip:gfx90a:sramecc+:xnack-".
#pragma once

#include "contract/diagnostic.h"

#include <string>
#include <string_view>

namespace tta {

enum class Backend { Cuda, Hip };

struct Target {
  Backend backend = Backend::Cuda;
  /// Exact architecture as given, normalised: "80", "90a", "100f", "gfx942", "gfx90a:xnack-".
  std::string arch;
  int capability = 0;       ///< CUDA compute capability as an integer (80, 90, 100); 0 for HIP
  char archSuffix = 0;      ///< CUDA 'a' (arch-specific) or 'f' (family), else 0
  std::string processor;    ///< HIP processor without features: "gfx90a"; empty for CUDA
  char xnack = 0;           ///< HIP feature setting '+', '-', or 0 when unspecified ("any")
  char sramecc = 0;         ///< likewise
  int warpSize = 32;        ///< 32 for CUDA; 64 for gfx9 (CDNA/GCN), 32 for gfx10 and later

  /// "cuda:90a", "hip:gfx90a:xnack-": parses back to the same Target.
  std::string spelling() const;
  /// File-name-safe, unique per target: "sm80", "sm90a", "gfx942", "gfx90a_xnack-".
  std::string fileTag() const;
  bool operator==(const Target &) const = default;
};

/// Parses a --target value. A third field after a CUDA arch is upstream's warp size and must be
/// 32; after a HIP processor, fields are target-ID features (xnack/sramecc with + or -) or a
/// warp size that must match the processor's. Errors say what was expected.
Expected<Target> parseTarget(std::string_view text);

const char *backendName(Backend backend); ///< "cuda" / "hip"

} // namespace tta
