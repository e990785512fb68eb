// A built triton-aot shared library, opened with dlopen: its manifest (`<prefix>_manifest()`),
// its generic launchers (`<prefix>_<kernel>_config_argv()`) and its `<prefix>_last_error()`.
#pragma once

#include "contract/diagnostic.h"
#include "tuner/tune_expression.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tta::tune {

/// One C parameter of a kernel's entry point, as the manifest lists it.
struct ManifestParam {
  std::string name;      ///< the kernel parameter (a descriptor's parts: its C name)
  std::string cName;     ///< the C spelling ("int_" for a parameter named int)
  std::string kind;      ///< pointer, scalar, tensordesc, tensordesc_shape, tensordesc_stride
  std::string type;      ///< Triton's type: "*fp16", "i32", "tensordesc<fp16[64, 64]>"
  std::string cType;     ///< "const void *", "int32_t", "uint16_t", ...
  int size = 0;          ///< bytes the C function takes
};

struct ManifestConfig {
  int index = 0;
  std::string name;
  ExprNames constexprs;  ///< the integer (and boolean, as 0/1) constexprs
};

struct ManifestKernel {
  std::string name;
  std::vector<ManifestParam> params;
  bool callerGrid = false;           ///< compiled without a grid: the caller passes it
  std::vector<ManifestConfig> configs;
  std::vector<std::string> targets;  ///< "cuda:80", "cuda:90a", ...
};

struct LibraryManifest {
  std::string name;
  std::string prefix;
  std::string tritonVersion;   ///< the library's Triton versions, joined by ", "
  std::vector<ManifestKernel> kernels;
  std::string text;            ///< the manifest as the library returns it
};

/// Parses the parts of a manifest (schema "triton-aot-library", version 1) the tuner needs.
Expected<LibraryManifest> parseLibraryManifest(std::string_view text, const std::string &where);

/// The kernel named \p name, or null.
const ManifestKernel *findKernel(const LibraryManifest &manifest, std::string_view name);

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
};

/// The default prefix of a library file: "build/libmm.so" -> "mm".
std::string prefixFromLibraryPath(const std::string &path);

} // namespace tta::tune
