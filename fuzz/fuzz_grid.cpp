// parseGrid (contract/grid.h) and the linker's C translation of a grid dimension
// (linker/grid_codegen.h emitGridExpression).
#include "contract/grid.h"
#include "fuzz/fuzz_input.h"
#include "linker/grid_codegen.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  auto grid = tta::parseGrid(tta::fuzz::asText(data, size));
  if (!grid)
    return 0;
  std::vector<std::string> known;
  for (const auto &names : grid->names)
    known.insert(known.end(), names.begin(), names.end());
  (void)tta::checkGridNames(*grid, known);
  std::map<std::string, std::string, std::less<>> cNames;
  for (const std::string &name : known)
    cNames[name] = "(int64_t)" + name;
  tta::link::GridHelpers used;
  for (const std::string &dim : grid->dims)
    (void)tta::link::emitGridExpression(dim, cNames, used);
  return 0;
}
