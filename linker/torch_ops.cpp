#include "linker/torch_ops.h"

#include "contract/output_transaction.h"
#include "contract/read_file.h"

#include <map>
#include <sstream>

namespace tta::link {

namespace {

Diagnostic refuse(const std::string &kernel, const std::string &why) {
  Diagnostic diag = makeError(ExitCode::UsageError,
                              "--torch-ops: kernel '" + kernel + "' " + why);
  diag.notes.push_back("leave the kernel out of the library linked with --torch-ops, or call "
                       "it through the C API");
  return diag;
}

/// torch's ScalarType enumerator for a pointer's element type ("" when torch has none).
std::string torchDtype(const std::string &element) {
  static const std::map<std::string, std::string> kDtypes = {
      {"fp16", "Half"},          {"bf16", "BFloat16"},        {"fp32", "Float"},
      {"fp64", "Double"},        {"i1", "Bool"},              {"i8", "Char"},
      {"i16", "Short"},          {"i32", "Int"},              {"i64", "Long"},
      {"u1", "Bool"},            {"u8", "Byte"},              {"u16", "UInt16"},
      {"u32", "UInt32"},         {"u64", "UInt64"},           {"fp8e4nv", "Float8_e4m3fn"},
      {"fp8e5", "Float8_e5m2"},  {"fp8e4b8", "Float8_e4m3fnuz"}, {"fp8e5b16", "Float8_e5m2fnuz"}};
  auto it = kDtypes.find(element);
  return it == kDtypes.end() ? "" : it->second;
}

/// How a scalar of Triton type \p type crosses: its schema type, its C++ type in the boxed
/// function, and the C expression converting \p value to what the C API takes.
struct ScalarCrossing {
  std::string schema, cpp, convert;
};

std::optional<ScalarCrossing> scalarCrossing(const ManifestParam &p, const std::string &value) {
  const std::string &t = p.type;
  if (t == "i1" || t == "u1")
    return ScalarCrossing{"bool", "bool", value};
  if (t == "fp32")
    return ScalarCrossing{"float", "double", "static_cast<float>(" + value + ")"};
  if (t == "fp64")
    return ScalarCrossing{"float", "double", value};
  if (t == "fp16")
    return ScalarCrossing{"float", "double", "triton_aot_fp16(static_cast<float>(" + value + "))"};
  if (t == "bf16")
    return ScalarCrossing{"float", "double", "triton_aot_bf16(static_cast<float>(" + value + "))"};
  if (t.size() > 1 && (t[0] == 'i' || t[0] == 'u'))
    return ScalarCrossing{"int", "int64_t",
                          "checkedInt<" + p.cType + ">(op, \"" + p.name + "\", " + value + ")"};
  return std::nullopt;
}

std::string opName(const std::string &ns, const std::string &kernel) { return ns + "::" + kernel; }

/// The element type of a descriptor's type, "fp16" of "tensordesc<fp16[128, 64]>".
std::string descriptorElement(const std::string &type) {
  const std::size_t open = type.find('<'), bracket = type.find('[');
  if (open == std::string::npos || bracket == std::string::npos || bracket < open)
    return type;
  return type.substr(open + 1, bracket - open - 1);
}

/// The C++ name of descriptor \p name's tensor in the op: its base's C name ("a_desc_base"), a C
/// identifier whatever the kernel's parameter is called.
std::string cNameOfDescriptor(const ManifestKernel &kernel, const std::string &name) {
  for (const ManifestParam &p : kernel.params)
    if (p.kind == "tensordesc" && p.tensordesc == name)
      return p.cName;
  return name;
}

/// How many dimensions descriptor \p name has: its shape parameters.
int descriptorRank(const ManifestKernel &kernel, const std::string &name) {
  int rank = 0;
  for (const ManifestParam &p : kernel.params)
    rank += p.kind == "tensordesc_shape" && p.tensordesc == name;
  return rank;
}

/// One kernel's schema, CUDA and Meta functions; its registration lines go to \p defs / \p impls.
Status writeKernel(std::ostream &out, const LibraryManifest &manifest, const ManifestKernel &kernel,
                   const std::string &ns, std::string &defs, std::string &cudaImpls,
                   std::string &metaImpls) {
  std::vector<std::string> schemaArgs, cppArgs, checks, callArgs;
  char alias = 'a';
  for (const ManifestParam &p : kernel.params) {
    // A host tensor descriptor is one tensor: the C API's base, shapes and strides are its
    // data pointer, sizes and strides (in elements, as TensorDescriptor.from_tensor takes them).
    if (p.kind == "tensordesc_shape" || p.kind == "tensordesc_stride") {
      const std::string tensor = cNameOfDescriptor(kernel, p.tensordesc);
      callArgs.push_back(tensor + (p.kind == "tensordesc_shape" ? ".size(" : ".stride(") +
                         std::to_string(p.dim) + ")");
      continue;
    }
    if (p.kind == "pointer" || p.kind == "tensordesc") {
      const bool descriptor = p.kind == "tensordesc";
      const std::string element = descriptor ? descriptorElement(p.type) : p.type.substr(1);
      const std::string dtype = torchDtype(element);
      if (dtype.empty())
        return refuse(kernel.name, "takes '" + p.name + "' as " +
                                       (descriptor ? "a tensor descriptor of " : "a pointer to ") +
                                       element + ", a type torch has no dtype for");
      const bool written = p.written.value_or(true);
      const std::string &arg = p.cName;
      schemaArgs.push_back(std::string("Tensor") +
                           (written ? std::string("(") + alias++ + "!)" : "") + " " + p.name);
      cppArgs.push_back("Tensor " + arg);
      checks.push_back("  checkTensor(op, \"" + p.name + "\", " + arg + ", ScalarType::" + dtype +
                       ", \"" + element + "\", DEVICE);\n");
      if (descriptor)
        checks.push_back("  checkRank(op, \"" + p.name + "\", " + arg + ", " +
                         std::to_string(descriptorRank(kernel, p.tensordesc)) + ");\n");
      callArgs.push_back(arg + ".data_ptr()");
      continue;
    }
    auto crossing = scalarCrossing(p, p.cName);
    if (!crossing)
      return refuse(kernel.name, "takes '" + p.name + "' of type " + p.type +
                                     ", which no op argument is");
    schemaArgs.push_back(crossing->schema + " " + p.name);
    cppArgs.push_back(crossing->cpp + " " + p.cName);
    callArgs.push_back(crossing->convert);
  }
  if (!kernel.grid) {   // launched with the caller's grid: int[3] grid, after the arguments
    for (const ManifestParam &p : kernel.params)
      if (p.name == "grid" || p.cName == "grid")
        return refuse(kernel.name, "has a parameter named 'grid', the name its op gives the "
                                   "caller's grid; rename the parameter");
    schemaArgs.push_back("int[3] grid");
    cppArgs.push_back("torch::headeronly::HeaderOnlyArrayRef<int64_t> grid");
  }
  auto join = [](const std::vector<std::string> &parts) {
    std::string s;
    for (const std::string &p : parts)
      s += (s.empty() ? "" : ", ") + p;
    return s;
  };
  const std::string fn = "tta_" + kernel.name;
  const std::string op = opName(ns, kernel.name);
  out << "// " << op << ": " << kernel.function << " of " << kernel.source << "\n";
  out << "void " << fn << "_cuda(" << join(cppArgs) << ") {\n"
      << "  const char *op = \"" << op << "\";\n"
      << "  int32_t device = -1;\n";
  auto writeChecks = [&](const std::string &device) {
    for (std::string c : checks) {
      if (const std::size_t at = c.find("DEVICE"); at != std::string::npos)
        c.replace(at, 6, device);
      out << c;
    }
  };
  writeChecks("&device");
  out << "  STD_TORCH_CHECK(device >= 0, op, \": no tensor argument says which device to run on\");\n";
  std::string grid;
  if (!kernel.grid) {
    out << "  STD_TORCH_CHECK(grid.size() == 3, op, \": grid has \", grid.size(), \" values; it is [x, y, z]\");\n";
    grid = "checkedInt<uint32_t>(op, \"grid\", grid[0]), checkedInt<uint32_t>(op, \"grid\", grid[1]), "
           "checkedInt<uint32_t>(op, \"grid\", grid[2]), ";
  }
  // A guard only when the tensors are not on the current device: the common call saves the
  // guard's allocation and its two device switches.
  out << "  std::optional<torch::stable::accelerator::DeviceGuard> guard;\n"
      << "  if (torch::stable::accelerator::getCurrentDeviceIndex() != device)\n"
      << "    guard.emplace(device);\n"
      << "  void *stream = nullptr;\n"
      << "  TORCH_ERROR_CODE_CHECK(aoti_torch_get_current_cuda_stream(device, &stream));\n"
      << "  const triton_aot_status status = " << manifest.prefix << "_" << kernel.name
      << "(stream, " << grid << join(callArgs) << ");\n"
      << "  STD_TORCH_CHECK(status == TRITON_AOT_SUCCESS, op, \": \", " << manifest.prefix
      << "_last_error());\n"
      << "}\n\n";
  // Meta: the ops write their arguments in place and return nothing; nothing to compute, the
  // element types to check.
  out << "void " << fn << "_meta(" << join(cppArgs) << ") {\n"
      << "  const char *op = \"" << op << "\";\n";
  writeChecks("nullptr");
  for (const std::string &arg : cppArgs)
    if (arg.rfind("Tensor ", 0) != 0)
      out << "  (void)" << arg.substr(arg.rfind(' ') + 1) << ";\n";
  if (checks.empty())
    out << "  (void)op;\n";
  out << "}\n\n";
  defs += "  m.def(\"" + kernel.name + "(" + join(schemaArgs) + ") -> ()\");\n";
  cudaImpls += "  m.impl(\"" + kernel.name + "\", TORCH_BOX(&" + fn + "_cuda));\n";
  metaImpls += "  m.impl(\"" + kernel.name + "\", TORCH_BOX(&" + fn + "_meta));\n";
  return ok();
}

const char *const kPreamble = R"cpp(// Generated by triton-aot-ld --torch-ops: the kernels of this library as PyTorch operators,
// registered through PyTorch's stable C ABI (torch 2.10 and later). Build it against the oldest
// torch it must load in, with -DUSE_CUDA; see docs/torch.md.
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/util/Exception.h>
#include <triton_aot/runtime.h>

#include <cstdint>
#include <limits>
#include <optional>

)cpp";

const char *const kHelpers = R"cpp(namespace {

using torch::headeronly::ScalarType;
using torch::stable::Tensor;

// A tensor argument: of the kernel's element type; for a launch also on the GPU, on the
// device of the others (a Meta call checks the type only: tracing catches it too).
void checkTensor(const char *op, const char *param, const Tensor &t, ScalarType dtype,
                 const char *element, int32_t *launchDevice) {
  STD_TORCH_CHECK(t.scalar_type() == dtype, op, ": ", param, " must be a tensor of ", element,
                  " elements (the kernel's type)");
  if (!launchDevice)
    return;
  int32_t &device = *launchDevice;
  const int32_t here = t.get_device_index();
  if (device >= 0 && here == device)
    return; // on the GPU of the tensors before it (a CPU tensor's index is -1)
  STD_TORCH_CHECK(t.is_cuda(), op, ": ", param, " must be a tensor on the GPU");
  if (device < 0)
    device = here;
  STD_TORCH_CHECK(here == device, op, ": ", param, " is on device ", here,
                  ", the tensors before it on device ", device);
}

// A tensor a descriptor is made of: as many dimensions as the kernel's descriptor.
[[maybe_unused]] void checkRank(const char *op, const char *param, const Tensor &t, int64_t rank) {
  STD_TORCH_CHECK(t.dim() == rank, op, ": ", param, " must be a ", rank,
                  "-dimensional tensor (the kernel's tensor descriptor), not ", t.dim(),
                  "-dimensional");
}

// An int argument narrowed to the kernel's integer type, or an error naming it.
template <class T> T checkedInt(const char *op, const char *param, int64_t value) {
  const bool fits = std::numeric_limits<T>::is_signed
                        ? value >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
                              value <= static_cast<int64_t>(std::numeric_limits<T>::max())
                        : value >= 0 && static_cast<uint64_t>(value) <=
                                            static_cast<uint64_t>(std::numeric_limits<T>::max());
  STD_TORCH_CHECK(fits, op, ": ", param, " = ", value, " does not fit the kernel's ",
                  sizeof(T) * 8, "-bit ", std::numeric_limits<T>::is_signed ? "" : "un",
                  "signed integer");
  return static_cast<T>(value);
}

)cpp";

} // namespace

Expected<std::string> torchOpsSource(const LibraryManifest &manifest, const std::string &ns) {
  std::ostringstream out;
  out << kPreamble << "#include \"" << manifest.name << ".h\"\n\n" << kHelpers;
  std::string defs, cudaImpls, metaImpls;
  for (const ManifestKernel &kernel : manifest.kernels)
    if (Status s = writeKernel(out, manifest, kernel, ns, defs, cudaImpls, metaImpls); !s)
      return s.takeError();
  out << "} // namespace\n\n"
      << "STABLE_TORCH_LIBRARY(" << ns << ", m) {\n" << defs << "}\n\n"
      << "STABLE_TORCH_LIBRARY_IMPL(" << ns << ", CUDA, m) {\n" << cudaImpls << "}\n\n"
      << "// CPU tensors reach the same checks, which say that the op runs on the GPU.\n"
      << "STABLE_TORCH_LIBRARY_IMPL(" << ns << ", CPU, m) {\n" << cudaImpls << "}\n\n"
      << "STABLE_TORCH_LIBRARY_IMPL(" << ns << ", Meta, m) {\n" << metaImpls << "}\n";
  return out.str();
}

Status writeTorchOps(const std::filesystem::path &manifest, const std::string &ns,
                     const std::filesystem::path &outputDir) {
  auto text = readToolFile(manifest, kMaxToolFileBytes);
  if (!text)
    return text.takeError();
  auto read = parseLibraryManifest(*text, manifest.string());
  if (!read)
    return read.takeError();
  auto source = torchOpsSource(*read, ns);
  if (!source)
    return source.takeError();
  OutputTransaction outputs;
  outputs.keepIdenticalDestinations(true);
  if (Status s = outputs.stage(outputDir / (read->name + "_torch_ops.cpp"), *source); !s)
    return s;
  return outputs.commit();
}

} // namespace tta::link
