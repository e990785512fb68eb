// triton-aot-tune: times every config of a built library's kernels over the shapes of a tuning
// spec, on one GPU, and writes the tuning table (docs/tuning.md) the linker compiles into the
// library's shape dispatch.
#pragma once

#include "contract/diagnostic.h"
#include "contract/tuning_table.h"
#include "tuner/measure.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tta::tune {

struct TuneOptions {
  std::string library;               ///< the built shared library (libmm.so)
  std::string prefix;                ///< its C prefix; empty: from the file name
  std::string spec;                  ///< the tuning spec (*.tune.json)
  std::string output;                ///< the tuning table to write (merged into if present)
  int device = 0;                    ///< CUDA device ordinal
  std::vector<std::string> kernels;  ///< only these of the spec's kernels (empty: all)
  MeasureSettings measure;
};

/// Receives one progress line ("[3/12] matmul M=512 N=512 K=512 big: 11.2 us"), no newline.
using ProgressSink = std::function<void(std::string_view)>;

/// Opens the library and the device, times every (kernel, shape, config) and returns the table
/// of this run. Errors: a bad spec or library (ExitCode::UsageError), no driver or device
/// (EnvironmentError), a launch the library fails other than by refusing the config on this
/// device (KernelError, with the library's last error).
Expected<TuningTable> tune(const TuneOptions &options, const ProgressSink &progress);

/// tune(), then merges the result into options.output if it exists and writes it atomically.
/// Nothing is written on failure.
Status tuneAndWrite(const TuneOptions &options, const ProgressSink &progress);

/// The target the table names for a device of capability \p major.\p minor: "cuda:90a" for 9.0
/// and "cuda:100a" for 10.0 (Triton builds those arch-specific), else "cuda:<major><minor>";
/// where the library has an image for another spelling of the same capability ("cuda:90"
/// beside no "cuda:90a"), that one.
std::string targetForDevice(int major, int minor, const std::vector<std::string> &libraryTargets);

} // namespace tta::tune
