#include "codegen_fixture.h"

#include "contract/types.h"
#include "contract/c_names.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tta::link::testing {

KernelBuilder::KernelBuilder(std::string name) {
  kernel_.name = name;
  kernel_.function = name + "_fn";
  kernel_.source = "kernels/" + name + ".py";
  kernel_.grid = std::array<std::string, 3>{"1", "1", "1"};
}

KernelBuilder &KernelBuilder::param(const std::string &name, const std::string &tritonType) {
  CParam c;
  c.name = name;
  c.cName = cParameterName(name);
  c.tritonType = tritonType;
  ParamInfo info;
  info.name = name;
  info.type = tritonType;
  if (tritonType.front() == '*') {
    c.cType = "const void *";
    c.size = 8;
    info.kind = ParamInfo::Kind::Pointer;
  } else {
    const std::optional<ScalarType> type = parseScalarType(tritonType);
    if (!type)
      throw std::invalid_argument("unknown type " + tritonType);
    c.cType = std::string(typeInfo(*type).cType);
    c.size = typeInfo(*type).size;
    info.kind = ParamInfo::Kind::Scalar;
  }
  info.size = c.size;
  c.kernelIndex = kernel_.params.size();
  kernel_.params.push_back(info);
  kernel_.cParams.push_back(c);
  return *this;
}

KernelBuilder &KernelBuilder::tensorDesc(const std::string &name, const std::string &type,
                                         const TensorDescInfo &info) {
  const std::size_t first = kernel_.params.size();
  ParamInfo desc;
  desc.name = name;
  desc.kind = ParamInfo::Kind::TensorDesc;
  desc.type = type;
  desc.size = 128;
  desc.tensordesc = info;
  kernel_.params.push_back(desc);
  CParam base;
  base.name = name;
  base.cName = name + "_base";
  base.tritonType = type;
  base.cType = "const void *";
  base.size = 8;
  base.kernelIndex = first;
  base.tensorPart = CParam::TensorPart::Base;
  base.tensor = name;
  kernel_.cParams.push_back(base);
  for (const bool shape : {true, false})
    for (int d = 0; d < info.rank; ++d) {
      ParamInfo part;
      part.name = name + (shape ? ".shape" : ".stride") + std::to_string(d);
      part.kind = shape ? ParamInfo::Kind::TensorDescShape : ParamInfo::Kind::TensorDescStride;
      part.type = shape ? "i32" : "i64";
      part.size = shape ? 4 : 8;
      CParam c;
      c.name = part.name;
      c.cName = name + (shape ? "_shape" : "_stride") + std::to_string(d);
      c.tritonType = "i64";
      c.cType = "int64_t";
      c.size = 8;
      c.kernelIndex = kernel_.params.size();
      c.tensorPart = shape ? CParam::TensorPart::Shape : CParam::TensorPart::Stride;
      c.tensor = name;
      c.dim = d;
      kernel_.params.push_back(part);
      kernel_.cParams.push_back(c);
    }
  tensorMaps_.push_back(info);
  return *this;
}

KernelBuilder &KernelBuilder::constexprParam(const std::string &name) {
  ParamInfo info;
  info.name = name;
  info.kind = ParamInfo::Kind::Constexpr;
  info.type = "constexpr";
  kernel_.params.push_back(info);
  return *this;
}

KernelBuilder &KernelBuilder::oneParam(const std::string &name) {
  ParamInfo info;
  info.name = name;
  info.kind = ParamInfo::Kind::SpecializedToOne;
  info.type = "i32";
  info.hint = 1;
  info.value = 1;
  info.valueText = "1";
  kernel_.params.push_back(info);
  kernel_.oneOnly.push_back(name);
  return *this;
}

KernelBuilder &KernelBuilder::heuristicInput(const std::string &name,
                                             const std::string &tritonType) {
  param(name, tritonType);
  kernel_.cParams.back().heuristicInput = true;
  ParamInfo &info = kernel_.params.back();
  info.kind = ParamInfo::Kind::HeuristicInput;
  info.size = 0;
  return *this;
}

KernelBuilder &KernelBuilder::grid(std::string x, std::string y, std::string z) {
  kernel_.grid = std::array<std::string, 3>{std::move(x), std::move(y), std::move(z)};
  return *this;
}

KernelBuilder &KernelBuilder::callerGrid() {
  kernel_.grid.reset();
  return *this;
}

KernelBuilder &KernelBuilder::target(const std::string &spelling) {
  Expected<Target> target = parseTarget(spelling);
  if (!target)
    throw std::invalid_argument(target.error().message);
  kernel_.targets.push_back(*target);
  return *this;
}

KernelBuilder &KernelBuilder::scratch(bool global, bool profile) {
  kernel_.globalScratchArg = global;
  kernel_.profileScratchArg = profile;
  return *this;
}

KernelBuilder &KernelBuilder::config(const std::string &name, nlohmann::json constexprs,
                                     std::vector<std::vector<std::string>> variants) {
  KernelConfig config;
  config.name = name;
  config.named = true;
  for (const auto &[key, value] : constexprs.items())
    config.constexprs[key] = value;
  config.numWarps = 4;
  config.numStages = 3;
  for (const std::vector<std::string> &promises : variants) {
    HintVariant variant;
    variant.hints.assign(kernel_.cParams.size(), 0);
    for (const std::string &promise : promises) {
      const std::size_t colon = promise.find(':');
      const std::string param = promise.substr(0, colon);
      std::size_t p = 0;
      while (p < kernel_.cParams.size() && kernel_.cParams[p].name != param)
        ++p;
      if (p == kernel_.cParams.size())
        throw std::invalid_argument("no parameter " + param);
      variant.hints[p] = std::stoi(promise.substr(colon + 1));
    }
    config.variants.push_back(variant);
  }
  kernel_.configs.push_back(config);
  return *this;
}

KernelBuilder &
KernelBuilder::heuristicConfig(const std::string &name, nlohmann::json constexprs,
                               const std::vector<std::pair<std::string, std::string>> &heuristics,
                               const std::vector<std::vector<nlohmann::json>> &values) {
  config(name, constexprs, {});
  KernelConfig &config = kernel_.configs.back();
  for (const std::vector<nlohmann::json> &row : values) {
    HintVariant variant;
    variant.hints.assign(kernel_.cParams.size(), 0);
    variant.constexprs = config.constexprs;
    for (std::size_t h = 0; h < heuristics.size() && h < row.size(); ++h) {
      const auto &[heuristic, expression] = heuristics[h];
      variant.heuristics.push_back({heuristic, expression, expression, true, row[h]});
      variant.constexprs[heuristic] = row[h];
    }
    config.variants.push_back(variant);
  }
  return *this;
}

void KernelBuilder::addTo(Library &library) {
  // Kernel::params is the first variant's view, as the linker reads it: its ":1" parameters
  // are specialized_to_one there even when other variants take them.
  if (!kernel_.configs.empty() && !kernel_.configs[0].variants.empty()) {
    const std::vector<int> &hints = kernel_.configs[0].variants[0].hints;
    for (std::size_t p = 0; p < hints.size(); ++p)
      for (ParamInfo &info : kernel_.params)
        if (info.name == kernel_.cParams[p].name) {
          info.hint = hints[p];
          if (hints[p] == 1) {
            info.kind = ParamInfo::Kind::SpecializedToOne;
            info.size = 0;
            info.value = 1;
            info.valueText = "1";
          }
        }
  }
  for (std::size_t c = 0; c < kernel_.configs.size(); ++c) {
    for (std::size_t v = 0; v < kernel_.configs[c].variants.size(); ++v) {
      HintVariant &variant = kernel_.configs[c].variants[v];
      variant.functions.clear();
      for (const Target &target : kernel_.targets) {
        const std::string tag = kernel_.name + "." + target.fileTag() + ".c" + std::to_string(c) +
                                "v" + std::to_string(v);
        const bool cuda = target.backend == Backend::Cuda;
        Function function;
        function.metadataFile = "/fake/" + tag + ".json";
        function.variantId = tag;
        function.entry = kernel_.function;
        function.launch.entry = kernel_.function;
        function.launch.numWarps = 4;
        function.launch.warpSize = target.warpSize;
        function.launch.block = {4 * target.warpSize, 1, 1};
        function.launch.shared = 1024 * (c + 1);
        function.tensorMaps = tensorMaps_;
        for (TensorDescInfo &map : function.tensorMaps)   // each config its own box
          map.box.front() = map.box.front() / static_cast<int>(c + 1);
        EmbeddedImage binary;
        binary.kind = cuda ? "cubin" : "hsaco";
        binary.sourceFile = "/fake/" + tag + (cuda ? ".cubin" : ".hsaco");
        // Repetitive, so zstd has something to win; distinct per function.
        for (int i = 0; i < 64; ++i)
          for (char ch : "\x7f"
                         "ELF fake image " +
                             tag)
            binary.bytes.push_back(static_cast<std::uint8_t>(ch));
        function.binary = library.images.size();
        function.imageSize = binary.bytes.size();
        library.images.push_back(binary);
        if (cuda) {
          EmbeddedImage ptx;
          ptx.kind = "ptx";
          ptx.sourceFile = "/fake/" + tag + ".ptx";
          const std::string text = "// fake PTX " + tag + "\n.entry " + kernel_.function + "()\n";
          ptx.bytes.assign(text.begin(), text.end());
          ptx.bytes.push_back(0);
          function.ptx = library.images.size();
          library.images.push_back(ptx);
        }
        variant.functions.push_back(function);
      }
    }
  }
  library.kernels.push_back(kernel_);
}

Library makeLibrary(const std::string &name, const std::string &prefix) {
  Library library;
  library.name = name;
  library.prefix = prefix.empty() ? name : prefix;
  library.tritonVersions = {"3.6.0"};
  return library;
}

GeneratedSources writeLibrary(const Library &library, const fs::path &dir,
                              const std::string &manifest, const std::string &inventory) {
  Expected<ImageBlob> blob = packImages(library, PackOptions{});
  if (!blob)
    throw std::runtime_error(blob.error().message);
  appendManifest(*blob, manifest);
  appendInventory(*blob, inventory);
  const fs::path blobPath = fs::absolute(dir / (library.name + ".images"));
  {
    std::ofstream out(blobPath, std::ios::binary);
    out.write(reinterpret_cast<const char *>(blob->bytes.data()),
              static_cast<std::streamsize>(blob->bytes.size()));
  }
  GeneratedSources sources = generateSources(library, *blob, CodegenOptions{blobPath});
  writeText(dir / (library.name + ".h"), sources.header);
  writeText(dir / (library.name + ".c"), sources.source);
  writeText(dir / (library.name + ".images.S"), sources.assembly);
  return sources;
}

TestDirectory::TestDirectory() {
  const char *base = std::getenv("TTA_TEST_TMPDIR");
  const ::testing::TestInfo *test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string leaf = std::string(test->test_suite_name()) + "." + test->name();
  for (char &c : leaf)
    c = c == '/' ? '_' : c; // parameterised tests: "Suite/Fixture.Test/0"
  path_ = fs::absolute(
      (base ? fs::path(base)
            : fs::temp_directory_path() / ("tta-codegen-" + std::to_string(::getpid()))) /
      leaf);
  fs::remove_all(path_);
  fs::create_directories(path_);
}

TestDirectory::~TestDirectory() {
  if (!::testing::Test::HasFailure()) {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
    if (!std::getenv("TTA_TEST_TMPDIR"))
      fs::remove(path_.parent_path(), ignored); // this process's directory, once empty
  }
}

std::string readText(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void writeText(const fs::path &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

CommandResult run(const std::string &command) {
  CommandResult result;
  FILE *pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) {
    result.status = -1;
    return result;
  }
  std::array<char, 4096> buffer;
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.output.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string quote(const std::string &text) {
  std::string out = "'";
  for (char c : text)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string runtimeIncludeDir() { return TTA_RUNTIME_INCLUDE_DIR; }
std::string runtimeLibrary() { return TTA_RUNTIME_LIBRARY; }

} // namespace tta::link::testing
