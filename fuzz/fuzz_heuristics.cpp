// The heuristic translator (compiler/heuristics.h): translateHeuristics over a describe answer
// (the frontend's JSON: "params", "heuristics"), then expandHeuristics over a signature that
// gives every runtime parameter an i32 and every constexpr 16. Also the --heuristic and
// --heuristic-values option texts.
#include "compiler/heuristics.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::string_view text = tta::fuzz::asText(data, size);
  tta::HeuristicDeclarations declared;
  (void)tta::addHeuristicOverride(text, declared);
  (void)tta::addHeuristicValues(text, declared);

  nlohmann::json describe = tta::fuzz::asJson(data, size);
  if (describe.is_discarded() || !describe.is_object())
    return 0;
  tta::HeuristicDeclarations none;
  auto heuristics = tta::translateHeuristics(describe, none, "kernel", "/k/kernel.py");
  if (!heuristics)
    return 0;

  std::string signature;
  auto params = describe.find("params");
  if (params != describe.end() && params->is_array())
    for (const nlohmann::json &param : *params) {
      if (!param.is_object())
        continue;
      auto constexprFlag = param.find("constexpr");
      bool isConstexpr = constexprFlag != param.end() && constexprFlag->is_boolean() &&
                         constexprFlag->get<bool>();
      signature += signature.empty() ? "" : ", ";
      signature += isConstexpr ? "16" : "i32";
    }
  auto resolved = tta::parseSignature(signature);
  if (!resolved)
    return 0;
  (void)tta::expandHeuristics(*resolved, *heuristics, none, describe, "kernel", "/k/kernel.py");
  return 0;
}
