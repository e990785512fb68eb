// Reads device ELF images (cubin, HSACO) with LLVM's Object library: which machine and arch they
// are built for, and the per-kernel resource figures they record.
#pragma once

#include "contract/diagnostic.h"
#include "contract/metadata.h"
#include "contract/target.h"

#include <cstdint>
#include <map>
#include <span>
#include <string>

namespace tta {

struct ImageInfo {
  Backend backend = Backend::Cuda;     ///< from e_machine: EM_CUDA (190) or EM_AMDGPU (224)
  std::uint16_t machine = 0;
  /// CUDA: the SM number (90); HIP: 0.
  int smVersion = 0;
  /// CUDA: true when the image is arch-specific ("a", recorded in .nv.compat).
  bool archSpecific = false;
  /// HIP: processor from EF_AMDGPU_MACH ("gfx942"); CUDA: "sm_90a" style.
  std::string arch;
  char xnack = 0;     ///< HIP: '+', '-', or 0 for any/unsupported
  char sramecc = 0;   ///< likewise
  /// Per kernel symbol: what the image says about it.
  std::map<std::string, ResourceInfo> kernels;
};

/// Parses an image. Errors name what is wrong ("not an ELF file", "ELF machine 62 is neither
/// EM_CUDA (190) nor EM_AMDGPU (224)").
///
/// Resource figures, per kernel: CUDA registers from EIATTR_REGCOUNT; spills = the kernel's
/// stack in bytes (EIATTR_MIN_STACK_SIZE, else EIATTR_FRAME_SIZE: local arrays plus spill slots,
/// cuobjdump's STACK); staticShared = the size of .nv.shared.<kernel> (cuobjdump's SHARED; on
/// sm_90+ it includes 1 KiB the toolchain reserves), 0 when absent. HIP: registers = .vgpr_count,
/// sgprs = .sgpr_count, spills = .vgpr_spill_count + .sgpr_spill_count, staticShared =
/// .group_segment_fixed_size.
///
/// All errors, here and from checkImageMatchesTarget, carry ExitCode::UsageError (a bad or
/// foreign image file); a caller that produced the image itself re-codes them (InternalError).
Expected<ImageInfo> inspectImage(std::span<const std::uint8_t> bytes);

/// Checks that the image is built for \p target: the machine matches the backend; CUDA: same
/// SM, and arch-specific exactly when the target is "a" ('f' and plain targets need a plain
/// image); HIP: same processor, and features compatible with the target ID (an image for "any"
/// satisfies '+' and '-'; an image with '+' or '-' satisfies only that setting).
/// Errors read "image is built for sm_80 but the target is cuda:90a".
Status checkImageMatchesTarget(const ImageInfo &info, const Target &target);

} // namespace tta
