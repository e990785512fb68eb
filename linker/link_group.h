// Inside buildLibrary() (linker/link_input.h): grouping checked variants into kernels, configs,
// hint variants and per-target functions, with every consistency check between them.
#pragma once

#include "contract/diagnostic.h"
#include "contract/heuristic_expr.h"
#include "contract/metadata.h"
#include "linker/link_model.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tta::link {

/// One metadata file after its images were read and checked.
struct ReadVariant {
  std::string file;                  ///< the metadata file (for messages)
  KernelMetadata meta;
  ResourceInfo resources;            ///< from the image
  std::size_t binary = 0;            ///< index into Library::images
  std::optional<std::size_t> ptx;    ///< index into Library::images, when embedded
  std::uint64_t imageSize = 0;
};

/// Whether \p name can name the output files: letters, digits, '_', '-', '.', '+', not starting
/// with '.' or '-'.
bool isOutputName(const std::string &name);

/// The library name (a file name stem) and the prefix (a C identifier; default: the name).
Status checkLibraryNames(const Library &library);

/// A refusal record: the compiler left config `config` of kernel `kernel` out for `target`.
struct Refusal {
  std::string file;      ///< the record (for messages)
  std::string kernel;    ///< kernel.name
  std::string target;    ///< target spelling ("cuda:80")
  std::string config;    ///< the config's name
  std::optional<int> configIndex;   ///< variant.config_index: its place in the declared list
  std::string reason;
  int numWarps = 0;      ///< variant.num_warps (for a config refused on every target)
  int numStages = 0;     ///< variant.num_stages
  nlohmann::json options = nlohmann::json::object();   ///< variant.options
  std::map<std::string, nlohmann::json> constexprs;   ///< variant.constexprs
};

/// Fills Library::kernels from \p variants (in order of first appearance), each kernel's configs
/// in their declared order (config_index). A config with a refusal for a target gets a function
/// that refuses to launch there; one refused on every target of its kernel is still a config of
/// it, in its place, refused everywhere; a kernel left with no config for one of its targets is
/// an error. Errors name the metadata file that caused them.
Status groupVariants(const std::vector<ReadVariant> &variants, Library &library,
                     const std::vector<Refusal> &refusals = {});

/// One warning per kernel whose first config is not built for some of its targets (left out
/// there), where no tuning table picks its configs: <prefix>_<kernel>() runs the first config, so
/// on such a device it returns TRITON_AOT_ERROR_NO_IMAGE. Empty when every default launches.
std::vector<std::string> defaultConfigWarnings(const Library &library);

/// "x_ptr:16, n:1", or \p none for the generic variant: for messages, --inspect and the
/// comments of generated code (which separate with " " and say "generic").
/// Names in a heuristic, for generated C: the kernel's C parameters (\p cNames, parallel to
/// kernel.cParams: the C variables holding them), else constants from \p constexprs. A
/// heuristic input (CParam::heuristicInput) is the C parameter only in the expression of
/// \p heuristic, the one that sets it; elsewhere it is the constexpr it computed.
HeuristicResolver heuristicResolver(const Kernel &kernel, std::vector<std::string> cNames,
                                    std::map<std::string, nlohmann::json> constexprs,
                                    std::string heuristic = {});

std::string hintsText(const std::vector<CParam> &params, const std::vector<int> &hints,
                      const std::string &separator = ", ", const std::string &none = "no hints");

/// hintsText() followed by the values of the heuristics the dispatcher tests for the variant
/// ("x_ptr:16, EVEN_N=true"; "EVEN_N=false"): what tells two variants apart.
std::string variantText(const std::vector<CParam> &params, const HintVariant &variant,
                        const std::string &separator = ", ", const std::string &none = "no hints");

/// A usage error located in \p file (the metadata or index file that caused it).
Diagnostic errorIn(const std::string &file, std::string message);

} // namespace tta::link
