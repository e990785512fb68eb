// Tuning tables: which config of a kernel is fastest for which shape, per target. The tuner
// (triton-aot-tune) writes them from timings on a GPU, or from Triton's own autotune cache; the
// linker (triton-aot-ld --tuning) compiles them into the library's shape dispatch. Format and
// rules: docs/tuning.md. The reader is the contract's, shared by both tools; it checks every
// member (names are C identifiers, text one line, targets parse) and names the one that is wrong.
#pragma once

#include "contract/diagnostic.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tta {

/// One tuned shape: the key's values, every config's median time (nullopt: the device could not
/// run it), and the winner.
struct TunedShape {
  std::vector<std::int64_t> key;                          ///< one value per TunedKernel::key name
  std::map<std::string, std::optional<double>> timesUs;   ///< config name -> microseconds
  std::string best;                                       ///< a config name with a time
};

/// The shapes of one kernel tuned on one target.
struct TunedTarget {
  std::string target;          ///< "cuda:90a", "hip:gfx942" (contract/target.h spelling)
  std::string device;          ///< the GPU it ran on ("NVIDIA H100 80GB HBM3")
  std::string tritonVersion;   ///< the Triton that built the library
  std::string library;         ///< the library's name
  std::string libraryHash;     ///< sha256 of its manifest, as tuned
  std::string source;          ///< "triton-aot-tune" or "triton-autotune-cache"
  nlohmann::json method;       ///< how times were measured (warm-up, repetitions, flush)
  std::vector<TunedShape> shapes;
};

struct TunedKernel {
  std::string kernel;                 ///< the kernel's name in the library (kernel.name)
  std::vector<std::string> key;       ///< integer runtime parameters the dispatch keys on
  std::vector<TunedTarget> targets;
};

struct TuningTable {
  std::vector<TunedKernel> kernels;
};

/// Parses and checks a table (\p where names it in errors: a path). Every error names the
/// offending member ("kernels[0].targets[1].shapes[3].best") and what was expected.
Expected<TuningTable> parseTuningTable(const nlohmann::json &json, const std::string &where);
/// Reads a file and parses it.
Expected<TuningTable> readTuningTable(const std::string &path);
/// The table as JSON (schema "triton-aot-tuning", version 1), shapes in the order given.
nlohmann::json tuningTableJson(const TuningTable &table);
/// Merges \p from into \p into: a (kernel, target) in both takes \p from's shapes for equal keys
/// and adds the others. Fails when a kernel's key names differ.
Status mergeTuningTables(TuningTable &into, const TuningTable &from);

/// The shape dispatch of one (kernel, target), as the linker compiles it: each key dimension's
/// distinct tuned values, sorted, and between neighbours a and b the boundary sqrt(a * b) (the
/// nearest value in log space: x < boundary picks a); then a dense grid, over every
/// combination of those values, of the config each combination runs: the tuned shape's winner
/// where it was tuned, else the winner of the tuned shape nearest in log space (sum over the
/// dimensions of the squared difference of log2 of the snapped values; ties to the earlier
/// shape in the table).
struct ShapeDispatch {
  std::vector<std::vector<std::int64_t>> values;   ///< per key dimension, ascending
  std::vector<std::vector<double>> boundaries;     ///< per dimension, values.size() - 1 of them
  std::vector<std::string> grid;                   ///< config names, row-major over values
};

/// Largest grid a dispatch may have (the product of the distinct values per dimension).
inline constexpr std::size_t kMaxDispatchGrid = 1 << 16;

/// The dispatch of \p target's shapes. Errors: no shape, or a grid over kMaxDispatchGrid.
Expected<ShapeDispatch> shapeDispatch(const TunedTarget &target, std::size_t keyCount);

/// The config \p dispatch picks for \p key (what the generated C computes).
const std::string &dispatchedConfig(const ShapeDispatch &dispatch,
                                    const std::vector<std::int64_t> &key);

} // namespace tta
