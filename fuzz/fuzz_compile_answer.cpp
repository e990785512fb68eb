// checkCompileAnswer, checkDescribeAnswer and checkRefusedAnswer (contract/compile_answer.h):
// the frontend's answers as a local or remote cache entry hands them to triton-aot-cc. The
// seeds are the results of real cache entries; each check must return, never throw or crash.
#include "contract/compile_answer.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  nlohmann::json json = tta::fuzz::asJson(data, size);
  if (json.is_discarded())
    return 0;
  (void)tta::checkCompileAnswer(json);
  (void)tta::checkDescribeAnswer(json);
  (void)tta::checkRefusedAnswer(json);
  // A compile answer that passes holds a describe answer that passes on its own.
  if (tta::checkCompileAnswer(json) && !tta::checkDescribeAnswer(json["describe"]))
    __builtin_trap();
  return 0;
}
