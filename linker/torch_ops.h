// PyTorch operators over a linked library (triton-aot-ld --torch-ops NAMESPACE): a C++ source
// that registers every kernel of the library as torch.ops.<namespace>.<kernel> through PyTorch's
// stable C ABI (torch/csrc/stable, torch 2.10 and later), so that one built extension loads in
// later torch releases too. Made from the library's manifest, as its reader in contract/ gives it.
//
// The schema comes from the kernel: a pointer is a Tensor, marked mutated (Tensor(a!)) when the
// kernel writes through it or it is not known that it does not (metadata params[].written); an
// integer is an int, a float a float, i1 a bool; a kernel launched with the caller's grid takes
// `int[3] grid` last. Ops return nothing, as out-style ops. At the call each tensor's device type,
// dtype and device are checked (messages name the parameter), the launch goes on the current
// stream of the tensors' device under a device guard, and the library's dispatcher picks the
// variant (hints, tuned config) as for a C caller. A Meta implementation (nothing to compute: the
// ops only write their arguments) lets torch.compile trace calls and opcheck run. Each is a boxed
// function written out for the op rather than TORCH_BOX's: it reads the dispatcher's stack as
// handles, asks torch through the shim's C functions, and deletes the handles it is given once,
// so that a call allocates nothing.
#pragma once

#include "contract/diagnostic.h"
#include "contract/library_manifest.h"

#include <filesystem>
#include <string>

namespace tta::link {

/// The C++ source for \p manifest's kernels in namespace \p ns (a C identifier), including the
/// library's generated header "<name>.h". A kernel the ops cannot take (a tensor descriptor, an
/// fp8 scalar) is a UsageError naming it.
Expected<std::string> torchOpsSource(const LibraryManifest &manifest, const std::string &ns);

/// triton-aot-ld --torch-ops NS --manifest LIB.json -o DIR: reads a linked library's manifest
/// (through its reader in contract/) and writes DIR/<name>_torch_ops.cpp, or nothing on error.
Status writeTorchOps(const std::filesystem::path &manifest, const std::string &ns,
                     const std::filesystem::path &outputDir);

} // namespace tta::link
