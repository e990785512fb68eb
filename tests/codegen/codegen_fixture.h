// Hand-built link models for the code generator's tests, and the tools to compile what it
// writes. Codegen does not look inside images, so their bytes are small fakes.
#pragma once

#include "contract/target.h"
#include "linker/codegen.h"
#include "linker/image_blob.h"
#include "linker/link_model.h"

#include <filesystem>
#include <string>
#include <vector>

namespace tta::link::testing {

namespace fs = std::filesystem;

/// Builds one Kernel: parameters in declaration order, configs, hint variants, targets. Each
/// (config, variant, target) gets its own fake binary image (and PTX for CUDA).
class KernelBuilder {
public:
  explicit KernelBuilder(std::string name);

  /// A runtime parameter: "*fp32", "i1", "i32", "fp16", ...
  KernelBuilder &param(const std::string &name, const std::string &tritonType);
  /// A host tensor descriptor (metadata kind tensordesc, \p type "tensordesc<fp16[64, 32]>")
  /// with \p info's TMA facts in every function: the tensordesc, shape and stride entries and
  /// the C parameters X_base, X_shape<d>, X_stride<d>, as the linker makes them.
  KernelBuilder &tensorDesc(const std::string &name, const std::string &type,
                            const TensorDescInfo &info);
  /// A constexpr parameter (its value comes from each config).
  KernelBuilder &constexprParam(const std::string &name);
  /// A parameter declared ":1" in every variant (not in the C API).
  KernelBuilder &oneParam(const std::string &name);
  /// The caller's value of a constexpr that a @triton.heuristics value computes from it
  /// (metadata kind heuristic_input): in the C API as \p tritonType, never passed to the kernel.
  KernelBuilder &heuristicInput(const std::string &name, const std::string &tritonType);
  KernelBuilder &grid(std::string x, std::string y = "1", std::string z = "1");
  /// No grid expressions: the caller passes grid_x, grid_y, grid_z.
  KernelBuilder &callerGrid();
  KernelBuilder &target(const std::string &spelling); ///< "cuda:80", "hip:gfx90a:xnack-"
  KernelBuilder &scratch(bool global, bool profile);
  /// A config; \p variants lists each hint variant's hints per runtime parameter (by name:
  /// {"x:16", "n:1"}; {} is the generic variant), in the order the model keeps them.
  KernelBuilder &config(const std::string &name, nlohmann::json constexprs,
                        std::vector<std::vector<std::string>> variants = {{}});
  /// A config whose variants differ in @triton.heuristics values the dispatcher tests at
  /// launch: \p heuristics are (name, C expression); each of \p values gives one variant's
  /// values of them, in order (no hints).
  KernelBuilder &heuristicConfig(const std::string &name, nlohmann::json constexprs,
                                 const std::vector<std::pair<std::string, std::string>> &heuristics,
                                 const std::vector<std::vector<nlohmann::json>> &values);
  /// Fills images into \p library and appends the kernel.
  void addTo(Library &library);

private:
  Kernel kernel_;
  std::vector<TensorDescInfo> tensorMaps_;
};

Library makeLibrary(const std::string &name, const std::string &prefix = "");
/// packImages + appendManifest("{...}") + appendInventory + generateSources for a blob at
/// dir/<name>.images, writing all four files into \p dir.
GeneratedSources writeLibrary(const Library &library, const fs::path &dir,
                              const std::string &manifest = "{\"library\": \"test\"}",
                              const std::string &inventory = "library test\n");

/// A fresh directory for the current test under $TTA_TEST_TMPDIR (or the system temp dir),
/// removed at the end unless the test failed (then it is kept to look at).
class TestDirectory {
public:
  TestDirectory();
  ~TestDirectory();
  TestDirectory(const TestDirectory &) = delete;
  TestDirectory &operator=(const TestDirectory &) = delete;
  const fs::path &path() const { return path_; }

private:
  fs::path path_;
};
std::string readText(const fs::path &path);
void writeText(const fs::path &path, const std::string &text);

struct CommandResult {
  int status = 0;
  std::string output; ///< stdout and stderr together
};
/// Runs \p command through /bin/sh.
CommandResult run(const std::string &command);
std::string quote(const std::string &text); ///< for /bin/sh

/// The runtime include directory and static library, from the build.
std::string runtimeIncludeDir();
std::string runtimeLibrary();

} // namespace tta::link::testing
