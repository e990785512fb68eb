#include "test_libraries.h"

#include "linker/tuning_link.h"

#include <fstream>

namespace tta::link::testing {

Library vectorAddLibrary(const std::string &name, const std::string &prefix) {
  Library library = makeLibrary(name, prefix);
  const std::vector<std::vector<std::string>> variants = {{"x_ptr:16", "y_ptr:16", "n_elements:16"},
                                                          {}};
  KernelBuilder("add")
      .param("x_ptr", "*fp32")
      .param("y_ptr", "*fp32")
      .param("out_ptr", "*fp32")
      .param("n_elements", "i32")
      .constexprParam("BLOCK")
      .grid("cdiv(n_elements, BLOCK)")
      .target("cuda:80")
      .target("hip:gfx90a:xnack-")
      .scratch(true, true)
      .config("large", {{"BLOCK", 1024}}, variants)
      .config("small", {{"BLOCK", 128}}, variants)
      .addTo(library);
  return library;
}

Library heuristicFormsLibrary(const std::string &name) {
  Library library = makeLibrary(name);
  const std::vector<std::pair<std::string, std::string>> heuristics = {
      {"FLAG", "bool(FLAG)"},
      {"WIDE", "n ** 2 >= 1048576 || 2 ** k < s"},
      {"ODD", "int(s * 4) % 2 == 1 && n * k"},
      {"SHAPED", "next_power_of_2(n) == BLOCK && s != NULL"}};
  std::vector<std::vector<nlohmann::json>> values;
  for (int bits = 0; bits < 16; ++bits)
    values.push_back({(bits & 8) == 0, (bits & 4) == 0, (bits & 2) == 0, (bits & 1) == 0});
  KernelBuilder("forms")
      .param("x", "*fp32")
      .param("n", "i64")
      .param("k", "i32")
      .param("s", "fp32")
      .heuristicInput("FLAG", "i32")
      .constexprParam("BLOCK")
      .target("cuda:80")
      .heuristicConfig("c", {{"BLOCK", 64}}, heuristics, values)
      .addTo(library);
  return library;
}

Library tensorDescLibrary(const std::string &name, const std::string &prefix) {
  Library library = makeLibrary(name, prefix);
  const std::vector<std::vector<std::string>> variants = {{"s:1"}, {}};
  KernelBuilder("tma")
      .param("s", "i32")
      .tensorDesc("a", "tensordesc<fp16[64, 32]>", TensorDescInfo{2, 6, 2, 2, {64, 32}, false, false})
      .param("n", "i32")
      .tensorDesc("b", "tensordesc<bf16[2, 16, 64]>",
                  TensorDescInfo{3, 9, 2, 3, {2, 16, 64}, true, true})
      .constexprParam("BLOCK")
      .grid("cdiv(n, BLOCK)", "s")
      .target("cuda:90a")
      .scratch(true, true)
      .config("big", {{"BLOCK", 64}}, variants)
      .config("half", {{"BLOCK", 32}}, variants)
      .addTo(library);
  return library;
}

Library edgeLibrary(const std::string &name, const std::string &prefix) {
  Library library = makeLibrary(name, prefix);
  KernelBuilder("scalars")
      .param("p", "*fp16")
      .param("b", "i1")
      .param("i8v", "i8")
      .param("i16v", "i16")
      .param("i32v", "i32")
      .param("i64v", "i64")
      .param("u8v", "u8")
      .param("u16v", "u16")
      .param("u32v", "u32")
      .param("u64v", "u64")
      .param("h", "fp16")
      .param("bh", "bf16")
      .param("f", "fp32")
      .param("d", "fp64")
      .grid("i32v", "2", "3")
      .target("cuda:80")
      .scratch(true, true)
      .config("only", nlohmann::json::object())
      .addTo(library);

  KernelBuilder("names")
      .param("int", "*fp32")
      .param("default", "i32")
      .param("stream", "i32")
      .param("config", "i32")
      .param("grid", "i32")
      .param("args", "*i8")
      .param("variant", "i64")
      .param("NULL", "i32")
      .param("int32_t", "i32")
      .param("tta_launch", "i32")
      .param("triton_aot_fail", "i32")
      .constexprParam("SCALE")
      .constexprParam("OFFSET")
      .constexprParam("EVEN")
      .constexprParam("MODE")
      .grid("max(cdiv(default, 4) + OFFSET, 0)", "EVEN + 1", "min(grid, 8)")
      .target("cuda:90a")
      .target("hip:gfx942")
      .config("half", {{"SCALE", 0.5}, {"OFFSET", -3}, {"EVEN", true}, {"MODE", "ieee"}},
              {{"int:16", "default:16"}, {}})
      .config("neg", {{"SCALE", -1.25}, {"OFFSET", -1}, {"EVEN", false}, {"MODE", "tf32"}},
              {{"int:16", "default:16"}, {}})
      .config("odd */ name \"q\" ?"
              "?= 100%",
              {{"SCALE", 2.0}, {"OFFSET", 0}, {"EVEN", false}, {"MODE", nullptr}})
      .addTo(library);

  KernelBuilder("one_fallback")
      .param("x", "*fp32")
      .param("n", "i32")
      .param("stride", "i64")
      .grid("cdiv(n, 64)")
      .target("cuda:80")
      .scratch(true, true)
      .config("c", nlohmann::json::object(), {{"x:16", "stride:1"}, {"stride:1"}, {"x:16"}, {}})
      .addTo(library);

  KernelBuilder("one_only")
      .param("x", "*fp32")
      .param("n", "i32")
      .grid("n")
      .target("cuda:80")
      .config("ones", nlohmann::json::object(), {{"x:16", "n:1"}, {"n:1"}})
      .config("any", nlohmann::json::object(), {{}})
      .addTo(library);

  KernelBuilder("strict")
      .param("x", "*fp32")
      .param("y", "*fp32")
      .param("n", "i32")
      .oneParam("unit")
      .grid("cdiv(n, BLOCK) * unit")
      .constexprParam("BLOCK")
      .target("cuda:80")
      .target("cuda:90a")
      .config("a", {{"BLOCK", 256}}, {{"x:16", "y:16", "n:16"}, {"x:16", "y:16"}})
      .config("b", {{"BLOCK", 512}}, {{"x:16", "y:16"}})
      .addTo(library);

  KernelBuilder("empty_grid")
      .param("n", "i32")
      .param("m", "i32")
      .grid("n", "m", "1")
      .target("cuda:80")
      .config("c", nlohmann::json::object())
      .addTo(library);

  KernelBuilder("noargs")
      .constexprParam("N")
      .grid("N / 2")
      .target("hip:gfx90a")
      .scratch(true, true)
      .config("four", {{"N", 8}})
      .config("two", {{"N", 4}})
      .addTo(library);

  for (int k = 0; k < 8; ++k)
    KernelBuilder("k" + std::to_string(k))
        .param("x", "*fp32")
        .param("n", "i32")
        .grid("cdiv(n, " + std::to_string(64 << k) + ")")
        .target("cuda:80")
        .config("c" + std::to_string(k), nlohmann::json::object(), {{"x:16"}, {}})
        .addTo(library);

  KernelBuilder("rows")
      .param("x", "*fp32")
      .param("grid_x", "i32")
      .param("n", "i32")
      .callerGrid()
      .target("cuda:80")
      .config("narrow", nlohmann::json::object(), {{"x:16"}, {}})
      .config("wide", nlohmann::json::object(), {{}})
      .addTo(library);
  return library;
}

Library targetParameterLibrary(const std::string &name) {
  Library library = makeLibrary(name);
  KernelBuilder("loss")
      .param("logits", "*fp32")
      .param("target", "*i64")
      .param("N", "i32")
      .target("cuda:90a")
      .config("launch", nlohmann::json::object())
      .addTo(library);
  return library;
}

Library untunedLibrary(const std::string &name) {
  Library library = makeLibrary(name);
  KernelBuilder builder("mm");
  builder.param("a", "*fp16").param("M", "i32").param("N", "i32").param("K", "i64");
  builder.grid("M", "N", "1").target("cuda:80").target("cuda:90a").scratch(true, true);
  for (const char *config : {"small", "tall", "wide", "big"})
    builder.config(config, nlohmann::json::object());
  builder.addTo(library);
  return library;
}

nlohmann::json tunedTable() {
  nlohmann::json shapes = nlohmann::json::array();
  for (auto [m, n, best] : {std::tuple{256, 64, "small"}, std::tuple{4096, 64, "tall"},
                            std::tuple{256, 8192, "wide"}, std::tuple{4096, 8192, "big"}})
    shapes.push_back({{"key", {m, n}},
                      {"best", best},
                      {"times_us", {{"small", 9.0}, {"tall", 9.0}, {"wide", 9.0}, {"big", 9.0},
                                    {best, 1.0}}}});
  return {{"schema", "triton-aot-tuning"},
          {"version", 1},
          {"kernels",
           {{{"kernel", "mm"},
             {"key", {"M", "N"}},
             {"targets",
              {{{"target", "cuda:90a"}, {"device", "NVIDIA H100 80GB HBM3"}, {"shapes", shapes}}}}}}}};
}

Library tunedLibrary(const fs::path &dir) {
  Library library = untunedLibrary();
  const fs::path table = dir / "tuned.tuning.json";
  std::ofstream(table) << tunedTable().dump(2);
  Status applied = applyTuning(library, {table.string()}, {});
  if (!applied)
    throw std::runtime_error(applied.error().message);
  return library;
}

Library tunedTensorDescLibrary(const fs::path &dir) {
  Library library = tensorDescLibrary("tdt");
  nlohmann::json shapes = nlohmann::json::array();
  for (auto [n, best] : {std::tuple{100, "half"}, std::tuple{10000, "big"}})
    shapes.push_back({{"key", {n}},
                      {"best", best},
                      {"times_us", {{"big", 9.0}, {"half", 9.0}, {best, 1.0}}}});
  const nlohmann::json table = {
      {"schema", "triton-aot-tuning"},
      {"version", 1},
      {"kernels",
       {{{"kernel", "tma"},
         {"key", {"n"}},
         {"targets",
          {{{"target", "cuda:90a"}, {"device", "NVIDIA H100 80GB HBM3"}, {"shapes", shapes}}}}}}}};
  const fs::path path = dir / "tdt.tuning.json";
  std::ofstream(path) << table.dump(2);
  Status applied = applyTuning(library, {path.string()}, {});
  if (!applied)
    throw std::runtime_error(applied.error().message);
  return library;
}

} // namespace tta::link::testing
