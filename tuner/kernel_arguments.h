// From a kernel's spec entry and its manifest entry to the arguments of one launch: which
// expression gives each C parameter, random device buffers for the pointers, scalar values at
// their C width, and the caller's grid.
#pragma once

#include "contract/diagnostic.h"
#include "tuner/kernel_library.h"
#include "tuner/tuning_spec.h"

#include <array>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace tta::tune {

/// One C parameter and where its value comes from.
struct BoundParam {
  ManifestParam param;
  const Expression *expression = nullptr;   ///< the spec's arg, or null for a key parameter
  int keyIndex = -1;                        ///< a key parameter the spec leaves out: its value
  std::string elementType;                  ///< pointers and descriptor bases: "fp16", "i32"
};

/// A spec entry checked against the library's kernel.
struct BoundKernel {
  const KernelSpec *spec = nullptr;
  const ManifestKernel *kernel = nullptr;
  std::vector<BoundParam> params;   ///< one per C parameter, in order
};

/// Checks \p spec against \p kernel: every key name is an integer scalar parameter, every arg
/// names a C parameter, every C parameter has an arg (a key parameter defaults to the key's
/// value), pointers point at a known element type, and a grid is given exactly when the kernel
/// takes the caller's. Errors name the kernel, the arg and the fix.
Expected<BoundKernel> bindKernel(const KernelSpec &spec, const ManifestKernel &kernel);

/// Copies host bytes to a new device buffer and returns its address.
using Uploader = std::function<Expected<std::uint64_t>(const std::vector<unsigned char> &)>;

/// The arguments of one shape: each C parameter's value in an 8-byte slot.
struct LaunchArguments {
  std::vector<std::array<unsigned char, 8>> slots;
  std::vector<void *> pointers;   ///< pointers[i] = slots[i].data(): what config_argv takes
};

/// Evaluates every argument for \p key; pointer parameters get a buffer of the element count
/// their expression gives, filled from \p random (never zeros) and uploaded.
Expected<LaunchArguments> buildArguments(const BoundKernel &bound,
                                         const std::vector<std::int64_t> &key,
                                         std::mt19937_64 &random, const Uploader &upload);

/// The caller's grid of \p key and \p config (a kernel compiled without a grid).
Expected<std::array<std::uint32_t, 3>> evaluateGrid(const BoundKernel &bound,
                                                    const std::vector<std::int64_t> &key,
                                                    const ManifestConfig &config);

/// Bytes of one element of a Triton type ("fp16" -> 2), 0 for an unknown one.
int elementBytes(const std::string &type);

/// \p count random elements of \p type, none zero: floats in [-1, 1), integers 1 to 8.
std::vector<unsigned char> randomElements(const std::string &type, std::int64_t count,
                                          std::mt19937_64 &random);

} // namespace tta::tune
