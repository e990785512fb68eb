// The front half of triton-aot-ld: reads the metadata files (and the compiler's --index files),
// checks every image against its metadata and its target, and groups the variants into the
// Library model (linker/link_model.h): kernels, configs, hint variants, one function per target.
// Everything that can be wrong with the inputs is found here, before anything is written.
#pragma once

#include "contract/diagnostic.h"
#include "contract/index_file.h"
#include "contract/log_sink.h"
#include "linker/link_model.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace tta::link {

struct LinkOptions {
  std::string name;                   ///< --name: the library (file names <name>.h, ...)
  std::string prefix;                 ///< --prefix: C prefix of the API; empty = name
  std::filesystem::path outputDir;    ///< -o
  std::vector<std::string> inputs;    ///< metadata files and --index files, in order
  bool embedPtx = true;               ///< embed each CUDA variant's PTX beside its cubin
  bool compress = false;              ///< zstd-compress the embedded images
  int compressionLevel = 19;
  bool verbose = false;               ///< log what was read and written (through the LogSink)
  std::vector<std::string> tuningTables;   ///< --tuning: tables compiled into shape dispatch
  std::string torchNamespace;   ///< --torch-ops: also write <name>_torch_ops.cpp (linker/torch_ops.h)
  /// Polled between phases; when it returns true, link() stops with ExitCode::Interrupted and
  /// leaves nothing behind (the tool sets it from SIGINT/SIGTERM).
  std::function<bool()> interrupted;
};

/// The metadata files \p inputs name, in order: a metadata file stands for itself, an index
/// file for the files it lists (relative to the index's directory).
Expected<std::vector<std::string>> expandInputs(const std::vector<std::string> &inputs);

/// The C type a parameter of Triton type \p tritonType is passed as (docs/generated-api.md):
/// "const void *" for pointers, "bool" for i1, "int32_t", "float", "uint16_t" (fp16/bf16 bits).
/// Empty when the type cannot be a runtime parameter.
std::string cTypeOf(const std::string &tritonType);

/// Reads and validates every input and builds the library. Warnings (a library mixing Triton
/// versions) and, with LinkOptions::verbose, progress lines go to \p log, never to a stream.
/// Errors are UsageError diagnostics whose file is the metadata file that caused them.
Expected<Library> buildLibrary(const LinkOptions &options, const LogSink &log = {});

} // namespace tta::link
