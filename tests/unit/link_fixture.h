// Hand-written metadata for the linker's unit tests: variants of small kernels whose images are
// copies of the committed test images (tests/data/images), written into a fresh directory.
#pragma once

#include "test_directory.h"

#include "contract/metadata.h"
#include "contract/sha256.h"
#include "linker/link_input.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace tta::link::testing {

namespace fs = std::filesystem;

inline std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void writeFile(const fs::path &path, std::string_view text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline ParamInfo ptr(const std::string &name, int hint = 0, const std::string &type = "*fp32") {
  return {name, ParamInfo::Kind::Pointer, type, 8, hint, {}, "", std::nullopt, std::nullopt};
}
inline ParamInfo scalar(const std::string &name, const std::string &type = "i32", int hint = 0,
                        std::size_t size = 4) {
  return {name, ParamInfo::Kind::Scalar, type, size, hint, {}, "", std::nullopt, std::nullopt};
}
inline ParamInfo one(const std::string &name, const std::string &type = "i32") {
  return {name, ParamInfo::Kind::SpecializedToOne, type, 0, 1, 1, "1", std::nullopt, std::nullopt};
}
inline ParamInfo constant(const std::string &name, nlohmann::json value, std::string text = "") {
  if (text.empty())
    text = value.dump();
  return {name, ParamInfo::Kind::Constexpr, "constexpr", 0, 0, std::move(value), std::move(text),
          std::nullopt, std::nullopt};
}

/// A fresh directory per test with the images every variant points at:
/// sm80.cubin, sm90a.cubin (kernel scale_shared), gfx90a.hsaco (kernel scale_lds), and
/// kernels.ptx for the CUDA variants.
class LinkFixture : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = testing_support::freshTestDirectory();
    const fs::path images = fs::path(TTA_TEST_DATA_DIR) / "images";
    fs::copy_file(images / "kernels.sm_80.cubin", dir_ / "sm80.cubin");
    fs::copy_file(images / "kernels.sm_90a.cubin", dir_ / "sm90a.cubin");
    fs::copy_file(images / "kernels.gfx90a.hsaco", dir_ / "gfx90a.hsaco");
    fs::copy_file(images / "kernels.ptx", dir_ / "kernels.ptx");
  }
  void TearDown() override {
    if (!HasFailure())
      fs::remove_all(dir_);
  }

  /// The default kernel: scale(x: *fp32, n: i32, BLOCK: constexpr = 128), grid cdiv(n, BLOCK).
  static std::vector<ParamInfo> defaultParams(int xHint = 0, int nHint = 0) {
    return {ptr("x", xHint), nHint == 1 ? one("n") : scalar("n", "i32", nHint),
            constant("BLOCK", 128)};
  }

  /// A valid variant of \p kernel for \p target with \p params (trailing scratch added).
  KernelMetadata variant(const std::string &kernel, const std::string &target,
                         std::vector<ParamInfo> params, const std::string &config = "",
                         int warps = 4) const {
    KernelMetadata m;
    m.generator = "triton-aot-cc 0.1.0";
    m.tritonVersion = "3.6.0";
    m.name = kernel;
    m.function = kernel + "_fn";
    m.source = "kernels/" + kernel + ".py";
    m.sourceKind = "python";
    m.target = *parseTarget(target);
    const bool cuda = m.target.backend == Backend::Cuda;
    m.imageArch = cuda ? "sm_" + m.target.arch : m.target.processor;
    m.variant.config = config;
    m.variant.numWarps = warps;
    m.variant.numStages = cuda ? 3 : 2;
    std::string signature;
    for (const ParamInfo &p : params) {
      if (p.kind == ParamInfo::Kind::Constexpr || p.kind == ParamInfo::Kind::SpecializedToOne)
        m.variant.constexprs[p.name] = p.value;
      signature += (signature.empty() ? "" : ", ") +
                   (p.kind == ParamInfo::Kind::Constexpr ? p.valueText
                                                         : p.type + (p.hint ? ":" + std::to_string(p.hint) : ""));
    }
    m.variant.signature = signature;
    params.push_back({"global_scratch", ParamInfo::Kind::GlobalScratch, "*i8", 8, 0, {}, "", std::nullopt, std::nullopt});
    params.push_back({"profile_scratch", ParamInfo::Kind::ProfileScratch, "*i8", 8, 0, {}, "", std::nullopt, std::nullopt});
    m.params = std::move(params);
    m.launch.entry = cuda ? "scale_shared" : "scale_lds";
    m.launch.numWarps = warps;
    m.launch.warpSize = m.target.warpSize;
    m.launch.block = {warps * m.target.warpSize, 1, 1};
    m.grid = {"cdiv(n, BLOCK)", "1", "1"};
    std::string binary = cuda ? "sm" + m.target.arch + ".cubin" : m.target.processor + ".hsaco";
    m.images.push_back(imageFile(cuda ? "cubin" : "hsaco", binary));
    if (cuda)
      m.images.push_back(imageFile("ptx", "kernels.ptx"));
    m.tritonHash = std::string(64, 'c');
    m.resources.registers = 99;   // not what the image says: the linker must read the image
    m.variant.id = kernel + "." + m.target.fileTag() + "." +
                   sha256Hex(config + signature + std::to_string(warps)).substr(0, 12);
    return m;
  }

  ImageFile imageFile(const std::string &kind, const std::string &file) const {
    std::string bytes = readFile(dir_ / file);
    return {kind, file, bytes.size(), sha256Hex(bytes)};
  }

  /// Writes \p meta as <id>.json (or \p fileName) and returns its path.
  std::string write(const KernelMetadata &meta, const std::string &fileName = "") const {
    fs::path path = dir_ / (fileName.empty() ? meta.variant.id + ".json" : fileName);
    writeFile(path, toJson(meta).dump(2));
    return path.string();
  }

  /// One variant per target, written; returns the paths.
  std::vector<std::string> writeAll(const std::string &kernel, const std::vector<std::string> &targets,
                                    const std::vector<ParamInfo> &params,
                                    const std::string &config = "") const {
    std::vector<std::string> paths;
    for (const std::string &t : targets)
      paths.push_back(write(variant(kernel, t, params, config)));
    return paths;
  }

  LinkOptions options(std::vector<std::string> inputs, const std::string &name = "lib") const {
    LinkOptions o;
    o.name = name;
    o.outputDir = dir_ / "out";
    o.inputs = std::move(inputs);
    return o;
  }

  fs::path dir_;
};

/// A refusal record as triton-aot-cc writes it (docs/metadata.md#refusal-records), written into
/// \p dir; \p configIndex: its variant.config_index (none: a record of an older triton-aot-cc).
inline std::string writeRefusal(const fs::path &dir, const std::string &kernel,
                                const std::string &target, const std::string &config,
                                const std::string &reason,
                                nlohmann::json constexprs = {{"BLOCK", 1024}},
                                std::optional<int> configIndex = std::nullopt) {
  const std::string file =
      kernel + "." + config + "." + target.substr(target.find(':') + 1) + ".json";
  nlohmann::json record = {{"schema", kRefusalSchema},
                           {"schema_version", 1},
                           {"generator", "triton-aot-cc 0.1.0"},
                           {"kernel",
                            {{"name", kernel},
                             {"function", kernel + "_fn"},
                             {"source", "kernels/" + kernel + ".py"},
                             {"source_kind", "python"}}},
                           {"target", {{"spelling", target}}},
                           {"variant",
                            {{"id", kernel + "." + config},
                             {"config", config},
                             {"signature", "*fp32, i32, 1024"},
                             {"num_warps", 8},
                             {"num_stages", 5},
                             {"options", nlohmann::json::object()},
                             {"constexprs", std::move(constexprs)}}},
                           {"reason", reason}};
  if (configIndex)
    record["variant"]["config_index"] = *configIndex;
  writeFile(dir / file, record.dump(2));
  return (dir / file).string();
}

inline std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

} // namespace tta::link::testing
