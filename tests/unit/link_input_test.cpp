// buildLibrary(): grouping of hand-written metadata into kernels, configs, hint variants and
// per-target functions, and every validation error with the file that caused it.
#include "link_fixture.h"
#include "linker/link_group.h"
#include "linker/link_input.h"

#include <gmock/gmock.h>

namespace tta::link::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class LinkInput : public LinkFixture {
protected:
  Library build(const LinkOptions &options, std::vector<std::string> *log = nullptr) {
    auto library = buildLibrary(options, [&](std::string_view line) {
      if (log)
        log->emplace_back(line);
    });
    EXPECT_TRUE(library) << (library ? "" : formatDiagnostic(library.error()));
    return library ? std::move(*library) : Library{};
  }

  /// The error of a build that must fail: a usage error blaming \p file.
  std::string fails(const LinkOptions &options, const std::string &file) {
    auto library = buildLibrary(options);
    EXPECT_FALSE(library) << "linked";
    if (library)
      return {};
    EXPECT_EQ(library.error().code, ExitCode::UsageError);
    EXPECT_EQ(library.error().file, file) << library.error().message;
    return library.error().message;
  }

  /// Two variants, the second written from \p change applied to a copy of the first: the
  /// link must fail blaming the second file with a message containing \p expected.
  template <class Change>
  void disagreement(Change change, const std::string &expected) {
    KernelMetadata a = variant("scale", "cuda:80", defaultParams());
    KernelMetadata b = variant("scale", "cuda:80", defaultParams(16, 16));
    change(b);
    std::string first = write(a), second = write(b, "second.json");
    EXPECT_THAT(fails(options({first, second}), second), HasSubstr(expected));
  }
};

const std::vector<std::string> kThreeTargets = {"cuda:90a", "hip:gfx90a", "cuda:80"};

std::vector<ParamInfo> withBlock(std::vector<ParamInfo> params, int block) {
  params[2] = constant("BLOCK", block);
  return params;
}

std::vector<std::string> spellings(const std::vector<Target> &targets) {
  std::vector<std::string> out;
  for (const Target &t : targets)
    out.push_back(t.spelling());
  return out;
}

TEST_F(LinkInput, GroupsKernelsConfigsHintVariantsAndTargets) {
  std::vector<std::string> inputs;
  // The generic variant comes first on the command line; dispatch order is most specialised first.
  for (int block : {256, 128})
    for (auto [xHint, nHint] : {std::pair{0, 0}, {16, 16}, {0, 1}})
      inputs = concat(inputs, writeAll("scale", kThreeTargets, withBlock(defaultParams(xHint, nHint), block)));
  inputs = concat(inputs, writeAll("other", {"cuda:80"},
                                   {ptr("y", 0, "*fp16"), scalar("n", "i64", 0, 8), constant("BLOCK", 64)}));
  Library lib = build(options(inputs, "mylib"));
  EXPECT_EQ(lib.name, "mylib");
  EXPECT_EQ(lib.prefix, "mylib");
  ASSERT_EQ(lib.kernels.size(), 2u);

  const Kernel &k = lib.kernels[0];
  EXPECT_EQ(k.name, "scale");
  EXPECT_EQ(k.function, "scale_fn");
  EXPECT_EQ(k.source, "kernels/scale.py");
  EXPECT_THAT(spellings(k.targets), ElementsAre("cuda:80", "cuda:90a", "hip:gfx90a"));
  ASSERT_EQ(k.cParams.size(), 2u);
  EXPECT_EQ(k.cParams[0].name, "x");
  EXPECT_EQ(k.cParams[0].cType, "const void *");
  EXPECT_EQ(k.cParams[0].size, 8u);
  EXPECT_EQ(k.cParams[0].kernelIndex, 0u);
  EXPECT_EQ(k.cParams[1].name, "n");   // runtime in some variants, ":1" in others
  EXPECT_EQ(k.cParams[1].cType, "int32_t");
  EXPECT_EQ(k.cParams[1].size, 4u);
  EXPECT_TRUE(k.oneOnly.empty());
  EXPECT_TRUE(k.globalScratchArg);
  EXPECT_TRUE(k.profileScratchArg);
  EXPECT_EQ((*k.grid)[0], "cdiv(n, BLOCK)");

  ASSERT_EQ(k.configs.size(), 2u);
  EXPECT_EQ(k.configs[0].name, "BLOCK=256,num_warps=4");   // first appearance is the default
  EXPECT_FALSE(k.configs[0].named);
  EXPECT_EQ(k.configs[0].constexprs.at("BLOCK"), 256);
  EXPECT_EQ(k.configs[1].name, "BLOCK=128,num_warps=4");
  for (const KernelConfig &c : k.configs) {
    ASSERT_EQ(c.variants.size(), 3u);
    EXPECT_THAT(c.variants[0].hints, ElementsAre(16, 16));
    EXPECT_THAT(c.variants[1].hints, ElementsAre(0, 1));
    EXPECT_THAT(c.variants[2].hints, ElementsAre(0, 0));   // the generic fallback is last
    EXPECT_EQ(c.constexprs.count("n"), 0u);   // ":1" values are not config constexprs
    for (const HintVariant &v : c.variants) {
      ASSERT_EQ(v.functions.size(), 3u);
      for (std::size_t t = 0; t < 3; ++t) {
        const Function &f = v.functions[t];
        const bool cuda = k.targets[t].backend == Backend::Cuda;
        EXPECT_EQ(f.entry, cuda ? "scale_shared" : "scale_lds");
        EXPECT_EQ(lib.images[f.binary].kind, cuda ? "cubin" : "hsaco");
        EXPECT_EQ(f.ptx.has_value(), cuda);
        // From the image (cuobjdump: REG:10; HSACO .vgpr_count 4), not the metadata's 99.
        EXPECT_EQ(f.resources.registers, cuda ? 10 : 4);
        EXPECT_EQ(f.imageSize, lib.images[f.binary].bytes.size());
        EXPECT_THAT(f.variantId, HasSubstr(k.targets[t].fileTag()));
      }
    }
  }
  // Identical bytes are embedded once: three binaries and one PTX (NUL-terminated).
  ASSERT_EQ(lib.images.size(), 4u);
  for (const EmbeddedImage &image : lib.images) {
    EXPECT_TRUE(fs::path(image.sourceFile).is_absolute());
    if (image.kind == "ptx") {
      std::string text = readFile(dir_ / "kernels.ptx");
      EXPECT_EQ(image.bytes.size(), text.size() + 1);
      EXPECT_EQ(image.bytes.back(), 0);
      EXPECT_EQ(image.sha256, sha256Hex(text));
    }
  }

  const Kernel &other = lib.kernels[1];
  EXPECT_EQ(other.cParams[0].cType, "const void *");
  EXPECT_EQ(other.cParams[1].cType, "int64_t");
  EXPECT_EQ(other.configs[0].name, "BLOCK=64,num_warps=4");
  EXPECT_THAT(lib.tritonVersions, ElementsAre("3.6.0"));
}

TEST_F(LinkInput, IndexFilesExpandRelativeToTheirDirectory) {
  std::vector<std::string> files = writeAll("scale", {"cuda:80", "hip:gfx90a"}, defaultParams());
  nlohmann::json index = {{"schema", "triton-aot-index"}, {"schema_version", 1}, {"metadata", nlohmann::json::array()}};
  for (const std::string &f : files)
    index["metadata"].push_back(fs::path(f).filename().string());
  writeFile(dir_ / "index.json", index.dump());
  auto expanded = expandInputs({(dir_ / "index.json").string()});
  ASSERT_TRUE(expanded);
  EXPECT_EQ(*expanded, files);
  Library lib = build(options({(dir_ / "index.json").string()}));
  ASSERT_EQ(lib.kernels.size(), 1u);
  EXPECT_EQ(lib.kernels[0].targets.size(), 2u);

  index["schema_version"] = 2;
  writeFile(dir_ / "index.json", index.dump());
  EXPECT_THAT(fails(options({(dir_ / "index.json").string()}), (dir_ / "index.json").string()),
              HasSubstr("schema_version 2 is newer than this tool supports (1); update triton-aot"));
}

TEST_F(LinkInput, ParametersOneInEveryVariantLeaveTheApi) {
  auto inputs = concat(writeAll("scale", {"cuda:80"}, defaultParams(16, 1)),
                       writeAll("scale", {"cuda:80"}, defaultParams(0, 1)));
  Library lib = build(options(inputs));
  const Kernel &k = lib.kernels.at(0);
  ASSERT_EQ(k.cParams.size(), 1u);
  EXPECT_EQ(k.cParams[0].name, "x");
  EXPECT_THAT(k.oneOnly, ElementsAre("n"));
  ASSERT_EQ(k.configs.at(0).variants.size(), 2u);
  EXPECT_THAT(k.configs[0].variants[0].hints, ElementsAre(16));
  EXPECT_THAT(k.configs[0].variants[1].hints, ElementsAre(0));
}

TEST_F(LinkInput, AHeuristicInputIsACParameterThatPicksTheVariantAndIsNeverPassed) {
  // unsloth's "FLAG": lambda args: bool(args["FLAG"]), the caller's FLAG an i32 of the C API.
  auto flagged = [&](bool value, ParamInfo flag) {
    KernelMetadata m =
        variant("scale", "cuda:80", {ptr("x"), scalar("n"), flag, constant("BLOCK", 128)});
    m.variant.constexprs["FLAG"] = value;
    m.variant.heuristics.push_back({"FLAG", "bool(FLAG)", "bool(args['FLAG'])", true, value});
    m.variant.id += value ? "t" : "f";
    return m;
  };
  ParamInfo input{"FLAG", ParamInfo::Kind::HeuristicInput, "i32", 0, 0, true, "True", std::nullopt, std::nullopt};
  auto withValue = [&](bool value) {
    ParamInfo p = input;
    p.value = value;
    p.valueText = value ? "True" : "False";
    return p;
  };
  const std::string on = write(flagged(true, withValue(true))),
                    off = write(flagged(false, withValue(false)));
  Library lib = build(options({on, off}));
  const Kernel &k = lib.kernels.at(0);
  ASSERT_EQ(k.cParams.size(), 3u);
  EXPECT_EQ(k.cParams[2].name, "FLAG");
  EXPECT_TRUE(k.cParams[2].heuristicInput);
  EXPECT_EQ(k.cParams[2].cType, "int32_t");
  EXPECT_EQ(k.cParams[2].size, 4u);   // what the C function takes
  ASSERT_EQ(k.configs.size(), 1u);   // FLAG is not the config's
  EXPECT_EQ(k.configs[0].constexprs.count("FLAG"), 0u);
  ASSERT_EQ(k.configs[0].variants.size(), 2u);
  EXPECT_EQ(k.configs[0].variants[0].heuristics.at(0).value, true);

  // The caller's FLAG is read by FLAG's own heuristic only; elsewhere FLAG is what it computed.
  HeuristicResolver own = heuristicResolver(k, {"x", "n", "FLAG"}, {{"FLAG", true}}, "FLAG");
  ASSERT_TRUE(own("FLAG"));
  EXPECT_EQ(own("FLAG")->kind, HeuristicBinding::Kind::Int);
  EXPECT_EQ(own("FLAG")->cExpr, "FLAG");
  HeuristicResolver other = heuristicResolver(k, {"x", "n", "FLAG"}, {{"FLAG", true}}, "LATER");
  ASSERT_TRUE(other("FLAG"));
  EXPECT_EQ(other("FLAG")->kind, HeuristicBinding::Kind::Constant);
  EXPECT_FALSE(heuristicResolver(k, {}, {{"FLAG", true}}, "FLAG")("FLAG"))
      << "the caller's value is not the compiled-in one";

  // Every variant takes it the same way: not a constexpr in one, nor a plain scalar.
  KernelMetadata fixed = flagged(true, constant("FLAG", true));
  fixed.variant.heuristics[0].runtime = false;
  const std::string constexprFile = write(fixed, "constexpr.json");
  EXPECT_THAT(fails(options({on, constexprFile}), constexprFile),
              HasSubstr("'FLAG', is a constexpr here but a runtime scalar"));
  KernelMetadata passed = flagged(false, scalar("FLAG"));
  const std::string scalarFile = write(passed, "scalar.json");
  EXPECT_THAT(fails(options({on, scalarFile}), scalarFile),
              HasSubstr("'FLAG', is a scalar here but a heuristic_input"));
}

TEST_F(LinkInput, EqualHintCountsKeepDeclarationOrder) {
  auto inputs = concat(writeAll("scale", {"cuda:80"}, defaultParams(0, 16)),
                       writeAll("scale", {"cuda:80"}, defaultParams(16, 0)));
  Library lib = build(options(inputs));
  const KernelConfig &c = lib.kernels.at(0).configs.at(0);
  EXPECT_THAT(c.variants.at(0).hints, ElementsAre(0, 16));
  EXPECT_THAT(c.variants.at(1).hints, ElementsAre(16, 0));
}

TEST_F(LinkInput, CTypesFollowTheGeneratedApi) {
  EXPECT_EQ(cTypeOf("*fp16"), "const void *");
  EXPECT_EQ(cTypeOf("i1"), "bool");
  EXPECT_EQ(cTypeOf("i8"), "int8_t");
  EXPECT_EQ(cTypeOf("u64"), "uint64_t");
  EXPECT_EQ(cTypeOf("fp32"), "float");
  EXPECT_EQ(cTypeOf("fp64"), "double");
  EXPECT_EQ(cTypeOf("fp16"), "uint16_t");
  EXPECT_EQ(cTypeOf("bf16"), "uint16_t");
  EXPECT_EQ(cTypeOf("fp8e5"), "");   // pointee only
  EXPECT_EQ(cTypeOf("tensordesc"), "");

  auto inputs = writeAll("scale", {"cuda:80"},
                         {ptr("x"), scalar("n"), scalar("alpha", "fp32"), scalar("beta", "fp16", 0, 2),
                          scalar("flag", "i1", 0, 1), scalar("int"), constant("BLOCK", 128)});
  Library lib = build(options(inputs));
  const auto &params = lib.kernels.at(0).cParams;
  ASSERT_EQ(params.size(), 6u);
  EXPECT_EQ(params[2].cType, "float");
  EXPECT_EQ(params[3].cType, "uint16_t");
  EXPECT_EQ(params[3].size, 2u);
  EXPECT_EQ(params[4].cType, "bool");
  EXPECT_EQ(params[4].size, 1u);
  EXPECT_EQ(params[5].name, "int");
  EXPECT_EQ(params[5].cName, "int_");   // a C keyword gets a trailing '_'
}

TEST_F(LinkInput, NamedConfigsAndDerivedNames) {
  auto params = [](int block, double scale, int offset) {
    return std::vector<ParamInfo>{ptr("x"), scalar("n"), constant("BLOCK", block),
                                  constant("SCALE", scale), constant("OFFSET", offset)};
  };
  auto inputs = concat(writeAll("scale", {"cuda:80", "hip:gfx90a"}, params(128, 1.0, 0), "small"),
                       writeAll("scale", {"cuda:80", "hip:gfx90a"}, params(512, 1.0, 0), "large"));
  // Floats and negative numbers make ordinary config names (upstream link.py defect 12).
  inputs = concat(inputs, writeAll("scale", {"cuda:80", "hip:gfx90a"}, params(128, -0.5, -3)));
  Library lib = build(options(inputs));
  const Kernel &k = lib.kernels.at(0);
  ASSERT_EQ(k.configs.size(), 3u);
  EXPECT_EQ(k.configs[0].name, "small");
  EXPECT_TRUE(k.configs[0].named);
  EXPECT_EQ(k.configs[1].name, "large");
  EXPECT_EQ(k.configs[1].constexprs.at("BLOCK"), 512);
  EXPECT_EQ(k.configs[2].name, "BLOCK=128,SCALE=-0.5,OFFSET=-3,num_warps=4");
  EXPECT_EQ(k.configs[2].constexprs.at("SCALE"), -0.5);
}

TEST_F(LinkInput, NumStagesDefaultsDifferPerBackendButNameOneConfig) {
  // CUDA records num_stages 3 and HIP 2 when none was asked for: still one config.
  auto inputs = writeAll("scale", {"cuda:80", "hip:gfx90a"}, defaultParams());
  // Two configs that differ only in num_stages stay two, and their names say so.
  KernelMetadata four = variant("scale", "cuda:80", defaultParams());
  four.variant.numStages = 4;
  four.variant.id += "4";
  KernelMetadata hipFour = variant("scale", "hip:gfx90a", defaultParams());
  hipFour.variant.numStages = 4;
  hipFour.variant.id += "4";
  inputs.push_back(write(four));
  inputs.push_back(write(hipFour));
  Library lib = build(options(inputs));
  const Kernel &k = lib.kernels.at(0);
  ASSERT_EQ(k.configs.size(), 2u);
  EXPECT_EQ(k.configs[0].name, "BLOCK=128,num_warps=4,num_stages=cuda:3/hip:2");
  EXPECT_EQ(k.configs[1].name, "BLOCK=128,num_warps=4,num_stages=4");
  for (const KernelConfig &c : k.configs)
    EXPECT_EQ(c.variants.at(0).functions.size(), 2u);
}

TEST_F(LinkInput, NoPtxLeavesThePtxOut) {
  LinkOptions o = options(writeAll("scale", {"cuda:80"}, defaultParams()));
  o.embedPtx = false;
  fs::remove(dir_ / "kernels.ptx");   // not even read
  Library lib = build(o);
  ASSERT_EQ(lib.images.size(), 1u);
  EXPECT_FALSE(lib.kernels.at(0).configs.at(0).variants.at(0).functions.at(0).ptx);
}

TEST_F(LinkInput, MixedTritonVersionsOnlyWarn) {
  KernelMetadata a = variant("scale", "cuda:80", defaultParams());
  KernelMetadata b = variant("other", "cuda:80", defaultParams());
  b.tritonVersion = "3.5.0";
  std::vector<std::string> log;
  Library lib = build(options({write(a), write(b)}), &log);
  EXPECT_THAT(lib.tritonVersions, ElementsAre("3.5.0", "3.6.0"));
  ASSERT_EQ(log.size(), 1u);
  EXPECT_THAT(log[0], HasSubstr("warning: the library mixes kernels compiled by different Triton versions"));
  EXPECT_THAT(log[0], HasSubstr("3.5.0"));
}

TEST_F(LinkInput, VerboseSaysWhatWasRead) {
  LinkOptions o = options(writeAll("scale", kThreeTargets, defaultParams()));
  o.verbose = true;
  std::vector<std::string> log;
  build(o, &log);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_THAT(log[0], HasSubstr("read 3 metadata files: 1 kernel, 1 config, 1 hint variant, 3 functions, 4 distinct images"));
}

// ---------------------------------------------------------------------------------------------
// Inputs that are not what the compiler wrote.

TEST_F(LinkInput, StaleOrMissingImages) {
  std::string meta = write(variant("scale", "cuda:80", defaultParams()));
  std::string bytes = readFile(dir_ / "sm80.cubin");
  writeFile(dir_ / "sm80.cubin", bytes + "x");
  EXPECT_THAT(fails(options({meta}), meta), HasSubstr("bytes but this metadata file says"));
  EXPECT_THAT(fails(options({meta}), meta), HasSubstr("re-run triton-aot-cc"));
  bytes[bytes.size() - 1] ^= 1;
  writeFile(dir_ / "sm80.cubin", bytes);
  EXPECT_THAT(fails(options({meta}), meta), HasSubstr("does not have the SHA-256 this metadata file records"));
  fs::remove(dir_ / "sm80.cubin");
  EXPECT_THAT(fails(options({meta}), meta), HasSubstr("listed in this metadata file is missing"));
}

TEST_F(LinkInput, ImagesMustMatchTheirTarget) {
  KernelMetadata wrongSm = variant("scale", "cuda:90a", defaultParams());
  wrongSm.images[0] = imageFile("cubin", "sm80.cubin");
  std::string meta = write(wrongSm);
  EXPECT_THAT(fails(options({meta}), meta), HasSubstr("image is built for sm_80 but the target is cuda:90a"));

  KernelMetadata wrongMachine = variant("scale", "cuda:80", defaultParams());
  wrongMachine.images[0] = imageFile("cubin", "gfx90a.hsaco");
  meta = write(wrongMachine);
  EXPECT_THAT(fails(options({meta}), meta), HasSubstr("gfx90a.hsaco"));

  fs::copy_file(fs::path(TTA_TEST_DATA_DIR) / "images/x86_64.o", dir_ / "host.cubin");
  KernelMetadata foreign = variant("scale", "cuda:80", defaultParams());
  foreign.images[0] = imageFile("cubin", "host.cubin");
  meta = write(foreign);
  EXPECT_THAT(fails(options({meta}), meta), HasSubstr("neither EM_CUDA (190) nor EM_AMDGPU (224)"));

  KernelMetadata noEntry = variant("scale", "cuda:80", defaultParams());
  noEntry.launch.entry = "missing_kernel";
  meta = write(noEntry);
  EXPECT_THAT(fails(options({meta}), meta),
              HasSubstr("has no kernel 'missing_kernel' (launch.entry); its kernels: local_array, scale_shared"));
}

TEST_F(LinkInput, UnreadableInputs) {
  std::string missing = (dir_ / "nope.json").string();
  EXPECT_THAT(fails(options({missing}), missing), HasSubstr("cannot read"));
  writeFile(dir_ / "text.json", "not json");
  EXPECT_THAT(fails(options({(dir_ / "text.json").string()}), (dir_ / "text.json").string()),
              HasSubstr("not a JSON file"));
  writeFile(dir_ / "other.json", R"({"schema": "something-else"})");
  EXPECT_THAT(fails(options({(dir_ / "other.json").string()}), (dir_ / "other.json").string()),
              HasSubstr("not a triton-aot metadata or index file"));
  nlohmann::json newer = toJson(variant("scale", "cuda:80", defaultParams()));
  newer["schema_version"] = 2;
  writeFile(dir_ / "newer.json", newer.dump());
  EXPECT_THAT(fails(options({(dir_ / "newer.json").string()}), (dir_ / "newer.json").string()),
              HasSubstr("update triton-aot"));
  auto none = buildLibrary(options({}));
  ASSERT_FALSE(none);
  EXPECT_THAT(none.error().message, HasSubstr("no inputs"));
}

TEST_F(LinkInput, Duplicates) {
  KernelMetadata a = variant("scale", "cuda:80", defaultParams());
  std::string first = write(a);
  EXPECT_THAT(fails(options({first, first}), first), HasSubstr("this file is given twice"));
  std::string copy = write(a, "copy.json");
  EXPECT_THAT(fails(options({first, copy}), copy),
              HasSubstr("duplicate variant " + a.variant.id + ": also in '" + first + "'"));
  // Another id for the same kernel, config, hints and target.
  a.variant.id += "x";
  std::string again = write(a);
  EXPECT_THAT(fails(options({first, again}), again),
              HasSubstr("duplicate: kernel 'scale', config BLOCK=128,num_warps=4,num_stages=3, "
                        "variant (no hints) for cuda:80 is also in '" + first + "'"));
}

TEST_F(LinkInput, ConfigsWithOneNameAndDifferentValues) {
  std::string small = write(variant("scale", "cuda:80", defaultParams(), "cfg"));
  std::string large = write(variant("scale", "cuda:80", withBlock(defaultParams(16, 0), 512), "cfg"));
  EXPECT_THAT(fails(options({small, large}), large),
              HasSubstr("config 'cfg' of kernel 'scale' is BLOCK=512,num_warps=4,num_stages=3 here "
                        "but BLOCK=128,num_warps=4,num_stages=3 in '" + small +
                        "': two configs of one kernel cannot share a name"));
}

TEST_F(LinkInput, VariantsMustAgreeOnTheSignature) {
  disagreement([](KernelMetadata &m) { m.params[1].name = "count"; (*m.grid)[0] = "cdiv(count, BLOCK)"; },
               "parameter 2 of kernel 'scale' is 'count' here but 'n'");
  disagreement([](KernelMetadata &m) { m.params[1] = ptr("n"); },
               "parameter 2 of kernel 'scale', 'n', is a pointer here but a runtime scalar");
  disagreement([](KernelMetadata &m) { m.params[0].type = "*fp16"; },
               "parameter 1 of kernel 'scale', 'x', has type *fp16 here but *fp32");
  disagreement([](KernelMetadata &m) { m.params[1] = scalar("n", "i64", 0, 8); },
               "'n', has type i64 here but i32");
  disagreement([](KernelMetadata &m) { m.params.insert(m.params.begin() + 2, scalar("extra")); },
               "parameter 3 of kernel 'scale' is 'extra' here but 'BLOCK'");
  disagreement([](KernelMetadata &m) { m.params[1] = constant("n", 7); },
               "'n', is a constexpr here but a runtime scalar");
  disagreement([](KernelMetadata &m) { (*m.grid)[1] = "2"; },
               "the grid of kernel 'scale' is [cdiv(n, BLOCK), 2, 1] here but [cdiv(n, BLOCK), 1, 1]");
  disagreement([](KernelMetadata &m) { m.grid.reset(); },
               "the grid of kernel 'scale' is the caller's (no grid compiled in) here but "
               "[cdiv(n, BLOCK), 1, 1]");
  disagreement([](KernelMetadata &m) { m.function = "other_fn"; },
               "kernel 'scale' is the function 'other_fn' of 'kernels/scale.py' here but 'scale_fn'");
  disagreement([](KernelMetadata &m) { m.source = "kernels/elsewhere.py"; },
               "one kernel name cannot stand for two functions");
}

/// A tensordesc of \p type and \p box, then its shape and stride entries (rank = box size).
std::vector<ParamInfo> descriptor(const std::string &name, const std::string &type,
                                  std::vector<int> box, int dataType = 6) {
  ParamInfo desc;
  desc.name = name;
  desc.kind = ParamInfo::Kind::TensorDesc;
  desc.type = type;
  desc.size = 128;
  const int rank = static_cast<int>(box.size());
  desc.tensordesc = TensorDescInfo{rank, dataType, 2, 3, std::move(box), false, false};
  std::vector<ParamInfo> out = {desc};
  for (const bool shape : {true, false})
    for (int d = 0; d < rank; ++d) {
      ParamInfo part;
      part.name = name + (shape ? ".shape" : ".stride") + std::to_string(d);
      part.kind = shape ? ParamInfo::Kind::TensorDescShape : ParamInfo::Kind::TensorDescStride;
      part.type = shape ? "i32" : "i64";
      part.size = shape ? 4 : 8;
      out.push_back(part);
    }
  return out;
}

std::vector<ParamInfo> descriptorParams(const std::string &type, std::vector<int> box, int block,
                                        int dataType = 6) {
  std::vector<ParamInfo> params = descriptor("a", type, std::move(box), dataType);
  params.push_back(scalar("n"));
  params.push_back(constant("BLOCK", block));
  return params;
}

// A descriptor is (base, shapes, strides) in C; each function keeps its own TMA facts, so
// configs may differ in block shape (the box), but not in element type or rank.
TEST_F(LinkInput, TensorDescriptorsBecomeBaseShapesAndStridesWithPerFunctionMaps) {
  KernelMetadata big =
      variant("scale", "cuda:90a", descriptorParams("tensordesc<fp16[64, 32]>", {64, 32}, 64), "big");
  KernelMetadata small = variant("scale", "cuda:90a",
                                 descriptorParams("tensordesc<fp16[32, 32]>", {32, 32}, 32), "small");
  Library lib = build(options({write(big), write(small)}));
  ASSERT_EQ(lib.kernels.size(), 1u);
  const Kernel &k = lib.kernels[0];
  std::vector<std::string> names, types;
  for (const CParam &p : k.cParams)
    names.push_back(p.cName), types.push_back(p.cType);
  EXPECT_THAT(names, ElementsAre("a_base", "a_shape0", "a_shape1", "a_stride0", "a_stride1", "n"));
  EXPECT_THAT(types, ElementsAre("const void *", "int64_t", "int64_t", "int64_t", "int64_t",
                                 "int32_t"));
  EXPECT_EQ(k.cParams[0].tensorPart, CParam::TensorPart::Base);
  EXPECT_EQ(k.cParams[2].tensorPart, CParam::TensorPart::Shape);
  EXPECT_EQ(k.cParams[2].dim, 1);
  EXPECT_EQ(k.cParams[2].kernelIndex, 2u);
  EXPECT_EQ(k.cParams[3].tensorPart, CParam::TensorPart::Stride);
  EXPECT_EQ(k.cParams[3].tensor, "a");
  EXPECT_EQ(k.cParams[5].kernelIndex, 5u);
  ASSERT_EQ(k.configs.size(), 2u);
  ASSERT_EQ(k.configs[0].variants[0].functions[0].tensorMaps.size(), 1u);
  EXPECT_EQ(k.configs[0].variants[0].functions[0].tensorMaps[0].box, (std::vector<int>{64, 32}));
  EXPECT_EQ(k.configs[1].variants[0].functions[0].tensorMaps[0].box, (std::vector<int>{32, 32}));

  KernelMetadata bf16 = variant("scale", "cuda:90a",
                                descriptorParams("tensordesc<bf16[32, 32]>", {32, 32}, 32, 9), "bf");
  const std::string second = write(bf16, "second.json");
  EXPECT_THAT(fails(options({write(big), second}), second),
              HasSubstr("parameter 1 of kernel 'scale', 'a', is a tensordesc<bf16> of rank 2 here "
                        "but a tensordesc<fp16> of rank 2"));
}

TEST_F(LinkInput, ATensorDescriptorForHipOrInTheGridIsRefused) {
  KernelMetadata hip = variant("scale", "hip:gfx90a",
                               descriptorParams("tensordesc<fp16[64, 32]>", {64, 32}, 64));
  const std::string file = write(hip);
  EXPECT_THAT(fails(options({file}), file),
              HasSubstr("kernel 'scale' takes the host tensor descriptor 'a' for hip:gfx90a: the "
                        "runtime encodes such descriptors for CUDA (TMA) only"));
  KernelMetadata grid = variant("scale", "cuda:90a",
                                descriptorParams("tensordesc<fp16[64, 32]>", {64, 32}, 64));
  (*grid.grid)[1] = "a";
  const std::string gridFile = write(grid, "grid.json");
  EXPECT_THAT(fails(options({gridFile}), gridFile),
              HasSubstr("the grid of kernel 'scale' uses 'a', a tensordesc<fp16[64, 32]> parameter: "
                        "grids are integer expressions"));
}

TEST_F(LinkInput, ParameterCountsMustAgree) {
  KernelMetadata a = variant("scale", "cuda:80", defaultParams());
  KernelMetadata b = variant("scale", "cuda:80", {ptr("x", 16), scalar("n"), constant("BLOCK", 128), scalar("tail")});
  std::string first = write(a), second = write(b);
  EXPECT_THAT(fails(options({first, second}), second),
              HasSubstr("parameter 4 of kernel 'scale' is 'tail' here but 'global_scratch'"));
  // The same, detected by the count when every common parameter agrees.
  KernelMetadata c = a;
  c.variant.id += "c";
  c.params.pop_back();   // no profile_scratch
  second = write(c);
  EXPECT_THAT(fails(options({first, second}), second),
              HasSubstr("kernel 'scale' has 4 parameters here (x, n, BLOCK, global_scratch) but 5"));
}

TEST_F(LinkInput, EveryVariantNeedsEveryTarget) {
  auto inputs = concat(writeAll("scale", {"cuda:80", "hip:gfx90a"}, defaultParams()),
                       writeAll("scale", {"cuda:80"}, defaultParams(16, 16)));
  std::string blamed = inputs.back();
  EXPECT_THAT(fails(options(inputs), blamed),
              HasSubstr("kernel 'scale', config BLOCK=128,num_warps=4, variant "
                        "(x:16, n:16) has no function for hip:gfx90a (it is built for cuda:80), "
                        "but other variants of the kernel are (" + inputs[1] + ")"));
}

TEST_F(LinkInput, NamesTheGeneratedCodeCannotUse) {
  KernelMetadata bad = variant("scale-2", "cuda:80", defaultParams());
  std::string meta = write(bad);
  EXPECT_THAT(fails(options({meta}), meta), HasSubstr("kernel.name: \"scale-2\" is not a C identifier"));

  meta = write(variant("scale", "cuda:80", {ptr("tta_x"), scalar("n"), constant("BLOCK", 128)}));
  EXPECT_THAT(fails(options({meta}), meta), HasSubstr("names starting with 'tta_' are reserved"));

  meta = write(variant("scale", "cuda:80", {ptr("int"), ptr("int_"), scalar("n"), constant("BLOCK", 128)}));
  EXPECT_THAT(fails(options({meta}), meta), HasSubstr("parameters 'int' and 'int_' of kernel 'scale' are both 'int_' in C"));

  std::string a = write(variant("a", "cuda:80", defaultParams()));
  std::string aConfig = write(variant("a_config", "cuda:80", defaultParams()));
  EXPECT_THAT(fails(options({a, aConfig}), aConfig),
              HasSubstr("kernel 'a_config': the launcher would be lib_a_config, which is already "
                        "the config launcher of kernel 'a'"));
  for (std::string name :
       {"preload", "unload", "version", "manifest", "inventory", "last_error", "set_allocator"}) {
    meta = write(variant(name, "cuda:80", defaultParams()));
    EXPECT_THAT(fails(options({meta}), meta),
                HasSubstr("which is already the library-wide function lib_" + name));
  }
}

TEST_F(LinkInput, LibraryNameAndPrefix) {
  auto inputs = writeAll("scale", {"cuda:80"}, defaultParams());
  auto error = [&](const std::string &name, const std::string &prefix) {
    LinkOptions o = options(inputs, name);
    o.prefix = prefix;
    auto lib = buildLibrary(o);
    EXPECT_FALSE(lib);
    return lib ? std::string() : lib.error().message;
  };
  EXPECT_THAT(error("my-lib", ""), HasSubstr("is not a C identifier, so it cannot be the prefix of the C API: give --prefix"));
  EXPECT_THAT(error("lib", "9p"), HasSubstr("prefix '9p' is not a C identifier"));
  EXPECT_THAT(error("a/b", "p"), HasSubstr("cannot name the output files"));
  EXPECT_THAT(error("triton_aot", ""), HasSubstr("prefix 'triton_aot' would clash with the runtime's names (triton_aot_*): give --prefix"));
  EXPECT_THAT(error("lib", "triton_aot_x"), HasSubstr("choose another prefix"));
  EXPECT_THAT(error(".hidden", "p"), HasSubstr("cannot name the output files"));
  LinkOptions named = options(inputs, "my-lib");
  named.prefix = "my_lib";
  Library lib = build(named);
  EXPECT_EQ(lib.prefix, "my_lib");
}

TEST_F(LinkInput, GridsAreIntegerExpressions) {
  KernelMetadata m = variant("scale", "cuda:80", {ptr("x"), scalar("n"), constant("BLOCK", 0.5)});
  std::string meta = write(m);
  EXPECT_THAT(fails(options({meta}), meta),
              HasSubstr("the grid of kernel 'scale' uses the constexpr 'BLOCK', which is 0.5 here: "
                        "grids are integer expressions"));
  m = variant("scale", "cuda:80", defaultParams());
  (*m.grid)[0] = "cdiv(n, BLOCK) + x";
  meta = write(m);
  EXPECT_THAT(fails(options({meta}), meta), HasSubstr("uses 'x', a *fp32 parameter"));
  (*m.grid)[0] = "missing";
  meta = write(m);
  EXPECT_THAT(fails(options({meta}), meta), HasSubstr("grid: grid dimension 1 uses unknown name 'missing'"));
  // A ":1" parameter is an integer (1) in the grid: fine.
  m = variant("scale", "cuda:80", defaultParams(0, 1));
  Library lib = build(options({write(m)}));
  EXPECT_EQ(lib.kernels.size(), 1u);
}

TEST_F(LinkInput, AConfigRefusedOnEveryTargetIsStillAConfigRefusedEverywhere) {
  auto inputs = writeAll("scale", {"cuda:80", "hip:gfx90a"}, defaultParams(), "small");
  inputs.push_back(writeRefusal(dir_, "scale", "cuda:80", "big", "too much shared memory"));
  inputs.push_back(writeRefusal(dir_, "scale", "hip:gfx90a", "big", "too much LDS"));
  Library lib = build(options(inputs));
  const Kernel &k = lib.kernels.at(0);
  ASSERT_EQ(k.configs.size(), 2u);
  EXPECT_EQ(k.configs[0].name, "small");   // the default stays a built config
  const KernelConfig &big = k.configs[1];
  EXPECT_EQ(big.name, "big");
  EXPECT_TRUE(big.named);
  EXPECT_EQ(big.numWarps, 8);
  EXPECT_EQ(big.numStages, 5);
  EXPECT_EQ(big.constexprs.at("BLOCK"), 1024);   // the launch computes the grid from it
  ASSERT_EQ(big.variants.size(), 1u);
  EXPECT_THAT(big.variants[0].hints, ElementsAre(0, 0));
  ASSERT_EQ(big.variants[0].functions.size(), 2u);
  EXPECT_EQ(big.variants[0].functions[0].refusal,
            "config big is not built for cuda:80: too much shared memory");
  EXPECT_EQ(big.variants[0].functions[1].refusal,
            "config big is not built for hip:gfx90a: too much LDS");
}

TEST_F(LinkInput, AConfigRefusedEverywhereMustBeRefusedOnEveryTargetOfItsKernel) {
  auto inputs = writeAll("scale", {"cuda:80", "hip:gfx90a"}, defaultParams(), "small");
  std::string refusal = writeRefusal(dir_, "scale", "cuda:80", "big", "too much shared memory");
  inputs.push_back(refusal);
  EXPECT_THAT(fails(options(inputs), refusal),
              HasSubstr("kernel 'scale', config big has neither a function nor a refusal record "
                        "for hip:gfx90a"));
}

TEST_F(LinkInput, AConfigRefusedEverywhereNeedsTheValuesItsGridReads) {
  auto inputs = writeAll("scale", {"cuda:80"}, defaultParams(), "small");
  std::string refusal = writeRefusal(dir_, "scale", "cuda:80", "big", "too much shared memory",
                                     nlohmann::json::object());
  inputs.push_back(refusal);
  EXPECT_THAT(fails(options(inputs), refusal),
              HasSubstr("kernel 'scale', config big is refused on every target, and its refusal "
                        "record does not give the value of 'BLOCK', which the grid uses"));
}

TEST_F(LinkInput, AKernelWhoseEveryConfigIsRefusedOnATargetDoesNotLink) {
  // The one config is built for cuda:80 and refused for gfx90a: nothing is built for gfx90a.
  auto inputs = writeAll("scale", {"cuda:80"}, defaultParams(), "small");
  std::string refusal = writeRefusal(dir_, "scale", "hip:gfx90a", "small", "too much LDS");
  inputs.push_back(refusal);
  EXPECT_THAT(fails(options(inputs), refusal),
              HasSubstr("kernel 'scale' has no config built for hip:gfx90a (small: too much LDS)"));
  // ... and one whose every config is refused on every target.
  std::string alone = writeRefusal(dir_, "lonely", "cuda:80", "big", "too much shared memory");
  EXPECT_THAT(fails(options({inputs[0], alone}), alone),
              HasSubstr("kernel 'lonely' has no config built for cuda:80 (big: too much shared "
                        "memory) nor for any other target"));
}

std::vector<std::string> configNames(const Kernel &kernel) {
  std::vector<std::string> names;
  for (const KernelConfig &c : kernel.configs)
    names.push_back(c.name);
  return names;
}

TEST_F(LinkInput, ConfigsKeepTheirDeclaredOrderWhicheverTargetsBuildThem) {
  // Declared: first (too big for cuda:80), never (built for no target), plain. Each target's
  // run lists its built variants before its refusal records.
  auto built = [&](const std::string &target, const std::string &config, int block, int index) {
    KernelMetadata m = variant("scale", target, withBlock(defaultParams(), block), config);
    m.variant.configIndex = index;
    return write(m);
  };
  const std::vector<std::string> sm80 = {
      built("cuda:80", "plain", 128, 2),
      writeRefusal(dir_, "scale", "cuda:80", "first", "too much shared memory", {{"BLOCK", 1024}},
                   0),
      writeRefusal(dir_, "scale", "cuda:80", "never", "limited to archs=100a", {{"BLOCK", 64}}, 1)};
  const std::vector<std::string> gfx90a = {
      built("hip:gfx90a", "first", 1024, 0), built("hip:gfx90a", "plain", 128, 2),
      writeRefusal(dir_, "scale", "hip:gfx90a", "never", "limited to archs=100a", {{"BLOCK", 64}},
                   1)};
  for (const auto &inputs : {concat(sm80, gfx90a), concat(gfx90a, sm80)}) {
    Library lib = build(options(inputs));
    const Kernel &k = lib.kernels.at(0);
    ASSERT_THAT(spellings(k.targets), ElementsAre("cuda:80", "hip:gfx90a"));
    EXPECT_THAT(configNames(k), ElementsAre("first", "never", "plain"));
    if (k.configs.size() != 3)
      continue;
    const std::vector<Function> &first = k.configs[0].variants.at(0).functions;
    EXPECT_EQ(first.at(0).refusal, "config first is not built for cuda:80: too much shared memory");
    EXPECT_EQ(first.at(1).refusal, "");
    EXPECT_EQ(k.configs[0].constexprs.at("BLOCK"), 1024);
    for (const Function &f : k.configs[1].variants.at(0).functions) // never: no image anywhere
      EXPECT_THAT(f.refusal, HasSubstr("config never is not built for "));
    EXPECT_EQ(k.configs[1].constexprs.at("BLOCK"), 64);
    for (const Function &f : k.configs[2].variants.at(0).functions)
      EXPECT_EQ(f.refusal, "");
    // The untuned entry point runs config 0, which cuda:80 does not have: said once.
    EXPECT_THAT(defaultConfigWarnings(lib),
                ElementsAre("kernel 'scale': its first config, first, is not built for cuda:80, "
                            "so lib_scale(), which runs the first config, returns "
                            "TRITON_AOT_ERROR_NO_IMAGE on such a device; call lib_scale_config() "
                            "with a config built there, tune the kernel (--tuning), or declare "
                            "first a config every target builds"));
  }
}

TEST_F(LinkInput, ATunedTargetPicksItsOwnConfigsSoItsDefaultIsNotWarnedAbout) {
  auto inputs = writeAll("scale", {"cuda:80", "hip:gfx90a"}, defaultParams(), "plain");
  inputs.push_back(writeRefusal(dir_, "scale", "cuda:80", "wide", "too much shared memory",
                                {{"BLOCK", 1024}}, 0));
  inputs.push_back(
      writeRefusal(dir_, "scale", "hip:gfx90a", "wide", "too much LDS", {{"BLOCK", 1024}}, 0));
  Library lib = build(options(inputs));
  Kernel &k = lib.kernels.at(0);
  ASSERT_THAT(configNames(k), ElementsAre("wide", "plain"));
  EXPECT_THAT(defaultConfigWarnings(lib),
              ElementsAre(HasSubstr("its first config, wide, is not built for cuda:80, "
                                    "hip:gfx90a, so lib_scale()")));
  k.tuning = KernelTuning{};
  k.tuning->targets = {KernelTuning::TargetDispatch{}, std::nullopt}; // cuda:80 is tuned
  EXPECT_THAT(defaultConfigWarnings(lib),
              ElementsAre(HasSubstr("its first config, wide, is not built for hip:gfx90a, so")));
  k.configs = {k.configs[1], k.configs[0]};
  EXPECT_THAT(defaultConfigWarnings(lib), ElementsAre());
}

TEST_F(LinkInput, DecoratorListsChosenPerBackendFollowOneAnother) {
  // A module that picks its @triton.autotune list with is_cuda(), each target compiled on its
  // own: CUDA lists a, b; HIP lists c, a. The first target's list comes first.
  auto built = [&](const std::string &target, const std::string &config, int block, int index) {
    KernelMetadata m = variant("scale", target, withBlock(defaultParams(), block), config);
    m.variant.configIndex = index;
    m.variant.autotune = AutotuneInfo{{"n"}, {}, {}, "decorator", {}};
    return write(m);
  };
  const std::vector<std::string> cuda = {built("cuda:80", "a", 128, 0),
                                         built("cuda:80", "b", 256, 1)};
  const std::vector<std::string> hip = {built("hip:gfx90a", "c", 512, 0),
                                        built("hip:gfx90a", "a", 128, 1)};
  EXPECT_THAT(configNames(build(options(concat(cuda, hip))).kernels.at(0)),
              ElementsAre("a", "b", "c"));
  EXPECT_THAT(configNames(build(options(concat(hip, cuda))).kernels.at(0)),
              ElementsAre("c", "a", "b"));
}

TEST_F(LinkInput, ARefusalRecordsConfigIndexIsANonNegativeInteger) {
  auto inputs = writeAll("scale", {"cuda:80"}, defaultParams(), "small");
  std::string refusal = writeRefusal(dir_, "scale", "cuda:80", "big", "too much shared memory",
                                     {{"BLOCK", 1024}}, -1);
  inputs.push_back(refusal);
  EXPECT_THAT(fails(options(inputs), refusal),
              HasSubstr("variant.config_index: expected an integer >= 0, got -1"));
}

TEST_F(LinkInput, AKernelWithoutAGridTakesTheCallersBesideOneWithAGrid) {
  KernelMetadata rows = variant("rows", "cuda:80", defaultParams());
  rows.grid.reset();
  Library lib =
      build(options({write(rows, "rows.json"), write(variant("scale", "cuda:80", defaultParams()))}));
  ASSERT_EQ(lib.kernels.size(), 2u);
  EXPECT_FALSE(lib.kernels[0].grid);
  ASSERT_TRUE(lib.kernels[1].grid);
  EXPECT_EQ((*lib.kernels[1].grid)[0], "cdiv(n, BLOCK)");
}

} // namespace
} // namespace tta::link::testing
