// What triton-aot-cc built for a test library (its --index and metadata files): lets a test
// name the image a load or launch should have used ("vector_add.sm80.<digest>.cubin") and
// compare it with what the fake driver recorded (by hash).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tta::test {

struct CompiledVariant {
  std::string kernel;     ///< kernel.name
  std::string target;     ///< target.spelling: "cuda:80"
  std::string config;     ///< variant.config
  std::string signature;  ///< variant.signature
  bool hinted = false;    ///< the signature makes promises (":16" / ":1")
  std::string binary;     ///< file name of the cubin / hsaco
  std::string ptx;        ///< file name of the PTX ("" for HIP)
  nlohmann::json metadata;
};

class LibraryFiles {
public:
  explicit LibraryFiles(const std::string &indexPath);

  /// The one variant of `kernel` for `target` and `config` ("" matches a config without a
  /// name), hinted or generic; fails the test (and returns an empty one) when there is not one.
  const CompiledVariant &variant(const std::string &kernel, const std::string &target,
                                 const std::string &config, bool hinted) const;
  /// "vector_add.sm80.b52d85a3f4f3.cubin" for a hash the fake recorded; "unknown image" else.
  std::string fileOf(std::uint64_t hash) const;
  std::uint64_t hashOf(const std::string &file) const;
  const std::vector<CompiledVariant> &variants() const { return variants_; }

private:
  std::vector<CompiledVariant> variants_;
  std::map<std::uint64_t, std::string> files_;
  std::map<std::string, std::uint64_t> hashes_;
};

/// The libraries of this test program.
const LibraryFiles &kernelsFiles();   // rt_kernels: cuda:80, cuda:90a, hip:gfx942
const LibraryFiles &hopperFiles();    // rt_hopper (prefix hop): cuda:90a
const LibraryFiles &sharedFiles();    // rt_shared (prefix shr, a shared library): cuda:80, hip:gfx942

} // namespace tta::test
