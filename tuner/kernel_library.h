// A built triton-aot shared library, opened with dlopen: its manifest (`<prefix>_manifest()`),
// its generic launchers (`<prefix>_<kernel>_config_argv()`) and its `<prefix>_last_error()`.
#pragma once

#include "contract/diagnostic.h"
#include "contract/library_manifest.h"
#include "contract/tune_expression.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tta::tune {

// The manifest as contract/library_manifest.h reads it (its one reader): LibraryManifest,
// ManifestKernel, ManifestConfig, ManifestParam, findKernel().

/// A kernel compiled without a grid: the caller passes it.
inline bool takesCallerGrid(const ManifestKernel &kernel) { return !kernel.grid; }

/// The integer (and boolean, as 0/1) constexprs of \p config, for grid expressions.
ExprNames integerConstexprs(const ManifestConfig &config);

/// The library's Triton versions, joined by ", ".
std::string tritonVersionsOf(const LibraryManifest &manifest);

/// `<prefix>_<kernel>_config_argv`: args[i] points at the value of the i-th C parameter; grid
/// is the caller's grid for a kernel compiled without one, else NULL. Returns a
/// triton_aot_status.
using ConfigArgvLauncher = int (*)(void *stream, int config, const std::uint32_t *grid,
                                   void *const *args);

class KernelLibrary {
public:
  /// dlopens \p path and reads its manifest through `<prefix>_manifest()`; \p prefix empty: the
  /// file name without "lib" and extension (libmm.so -> mm).
  static Expected<std::unique_ptr<KernelLibrary>> open(const std::string &path,
                                                       std::string prefix);
  ~KernelLibrary();
  KernelLibrary(const KernelLibrary &) = delete;
  KernelLibrary &operator=(const KernelLibrary &) = delete;

  const LibraryManifest &manifest() const { return manifest_; }
  /// The manifest as the library returns it (its SHA-256 names the library in tuning tables).
  const std::string &manifestText() const { return manifestText_; }
  /// The generic launcher of \p kernel; fails when the library predates it.
  Expected<ConfigArgvLauncher> launcher(const std::string &kernel) const;
  /// This thread's message for the library's last failed call.
  std::string lastError() const;
  /// `<prefix>_unload()`: the images the runtime loaded leave every device (before the tuner
  /// releases its context).
  void unload() const;

private:
  KernelLibrary() = default;
  void *handle_ = nullptr;
  std::string path_;
  std::string prefix_;
  const char *(*lastError_)() = nullptr;
  int (*unload_)() = nullptr;
  LibraryManifest manifest_;
  std::string manifestText_;
};

/// The default prefix of a library file: "build/libmm.so" -> "mm".
std::string prefixFromLibraryPath(const std::string &path);

} // namespace tta::tune
