#include "linker/torch_ops.h"

#include "contract/output_transaction.h"
#include "contract/read_file.h"

#include <map>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

namespace tta::link {

namespace {

Diagnostic refuse(const std::string &kernel, const std::string &why) {
  Diagnostic diag = makeError(ExitCode::UsageError,
                              "--torch-ops: kernel '" + kernel + "' " + why);
  diag.notes.push_back("leave the kernel out of the library linked with --torch-ops, or call "
                       "it through the C API");
  return diag;
}

/// How a tensor's element type is known in the generated code: the constant holding the running
/// torch's number for it ("kHalf", torch's ScalarType enumerator) and the shim function giving it.
struct TorchDtype {
  std::string constant, shimFunction;
};

/// The dtype of a pointer's element type (none when torch has none).
std::optional<TorchDtype> torchDtype(const std::string &element) {
  static const std::map<std::string, std::pair<std::string, std::string>> kDtypes = {
      {"fp16", {"Half", "float16"}},
      {"bf16", {"BFloat16", "bfloat16"}},
      {"fp32", {"Float", "float32"}},
      {"fp64", {"Double", "float64"}},
      {"i1", {"Bool", "bool"}},
      {"i8", {"Char", "int8"}},
      {"i16", {"Short", "int16"}},
      {"i32", {"Int", "int32"}},
      {"i64", {"Long", "int64"}},
      {"u1", {"Bool", "bool"}},
      {"u8", {"Byte", "uint8"}},
      {"u16", {"UInt16", "uint16"}},
      {"u32", {"UInt32", "uint32"}},
      {"u64", {"UInt64", "uint64"}},
      {"fp8e4nv", {"Float8_e4m3fn", "float8_e4m3fn"}},
      {"fp8e5", {"Float8_e5m2", "float8_e5m2"}},
      {"fp8e4b8", {"Float8_e4m3fnuz", "float8_e4m3fnuz"}},
      {"fp8e5b16", {"Float8_e5m2fnuz", "float8_e5m2fnuz"}}};
  auto it = kDtypes.find(element);
  if (it == kDtypes.end())
    return std::nullopt;
  return TorchDtype{"k" + it->second.first, "aoti_torch_dtype_" + it->second.second + "()"};
}

/// How a scalar of Triton type \p type crosses: its schema type, its C++ type on the stack, and
/// the C expression converting \p value to what the C API takes.
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

std::string join(const std::vector<std::string> &parts, const char *separator = ", ") {
  std::string s;
  for (const std::string &p : parts)
    s += (s.empty() ? "" : separator) + p;
  return s;
}

/// What one kernel's op takes and passes on: its schema's arguments, where each sits on the
/// dispatcher's stack, the checks made of its tensors and the C API call's arguments.
struct OpSignature {
  struct Tensor {
    std::string name, cName;   ///< the parameter, its C++ name in the op
    std::string dtype;         ///< the constant holding its dtype ("kFloat")
    std::string element;       ///< the kernel's element type ("fp32")
    int rank = 0;              ///< a descriptor's: its dimensions (0: a pointer)
    std::size_t slot = 0;      ///< its place on the stack
  };
  struct Scalar {
    std::string cpp, cName;
    std::size_t slot = 0;
  };
  std::vector<std::string> schemaArgs;
  std::vector<Tensor> tensors;
  std::vector<Scalar> scalars;
  std::optional<std::size_t> gridSlot;   ///< launched with the caller's grid: int[3], last
  std::vector<std::string> callArgs;     ///< after the stream (and the grid)
  std::map<std::string, std::string> dtypes;   ///< constant -> the shim call giving it
  std::size_t slots = 0;                 ///< the schema's arguments
};

/// \p kernel's op signature, or an error naming what no op argument can be.
Expected<OpSignature> opSignature(const ManifestKernel &kernel) {
  OpSignature sig;
  char alias = 'a';
  for (const ManifestParam &p : kernel.params) {
    // A host tensor descriptor is one tensor: the C API's base, shapes and strides are its
    // data pointer, sizes and strides (in elements, as TensorDescriptor.from_tensor takes them).
    if (p.kind == "tensordesc_shape" || p.kind == "tensordesc_stride") {
      const std::string tensor = cNameOfDescriptor(kernel, p.tensordesc);
      sig.callArgs.push_back(tensor + (p.kind == "tensordesc_shape" ? ".size(" : ".stride(") +
                             std::to_string(p.dim) + ")");
      continue;
    }
    if (p.kind == "pointer" || p.kind == "tensordesc") {
      const bool descriptor = p.kind == "tensordesc";
      const std::string element = descriptor ? descriptorElement(p.type) : p.type.substr(1);
      const std::optional<TorchDtype> dtype = torchDtype(element);
      if (!dtype)
        return refuse(kernel.name, "takes '" + p.name + "' as " +
                                       (descriptor ? "a tensor descriptor of " : "a pointer to ") +
                                       element + ", a type torch has no dtype for");
      const bool written = p.written.value_or(true);
      sig.schemaArgs.push_back(std::string("Tensor") +
                               (written ? std::string("(") + alias++ + "!)" : "") + " " + p.name);
      sig.tensors.push_back({p.name, p.cName, dtype->constant, element,
                             descriptor ? descriptorRank(kernel, p.tensordesc) : 0, sig.slots++});
      sig.dtypes[dtype->constant] = dtype->shimFunction;
      sig.callArgs.push_back(p.cName + ".data_ptr()");
      continue;
    }
    auto crossing = scalarCrossing(p, p.cName);
    if (!crossing)
      return refuse(kernel.name, "takes '" + p.name + "' of type " + p.type +
                                     ", which no op argument is");
    sig.schemaArgs.push_back(crossing->schema + " " + p.name);
    sig.scalars.push_back({crossing->cpp, p.cName, sig.slots++});
    sig.callArgs.push_back(crossing->convert);
  }
  if (!kernel.grid) {   // launched with the caller's grid: int[3] grid, after the arguments
    for (const ManifestParam &p : kernel.params)
      if (p.name == "grid" || p.cName == "grid")
        return refuse(kernel.name, "has a parameter named 'grid', the name its op gives the "
                                   "caller's grid; rename the parameter");
    sig.schemaArgs.push_back("int[3] grid");
    sig.gridSlot = sig.slots++;
  }
  return sig;
}

std::string slot(std::size_t index) { return "tta_stack[" + std::to_string(index) + "]"; }

/// A boxed function's start: its stack checked against the schema and its arguments taken off
/// it: every tensor and the grid (handles the op owns and deletes, whatever happens next), and
/// for a launch the scalars.
void writeArguments(std::ostream &out, const OpSignature &sig, bool launch) {
  out << "  checkStack(tta_num_args, tta_num_outputs, " << sig.slots << ");\n";
  std::vector<std::string> tensors;
  for (const OpSignature::Tensor &t : sig.tensors)
    tensors.push_back(t.cName + "(" + slot(t.slot) + ")");
  if (!tensors.empty())
    out << "  const TensorArg " << join(tensors) << ";\n";
  if (sig.gridSlot)
    out << "  const IntListArg grid(" << slot(*sig.gridSlot) << ");\n";
  if (launch)
    for (const OpSignature::Scalar &s : sig.scalars)
      out << "  const " << s.cpp << " " << s.cName << " = torch::stable::detail::to<" << s.cpp
          << ">(" << slot(s.slot) << ");\n";
  if (tensors.empty() && !sig.gridSlot && !(launch && !sig.scalars.empty()))
    out << "  (void)tta_stack;\n";
}

/// Each tensor's checks; \p device: where a launch collects the tensors' device ("nullptr": Meta).
void writeTensorChecks(std::ostream &out, const OpSignature &sig, const std::string &device) {
  for (const OpSignature::Tensor &t : sig.tensors) {
    out << "  checkTensor(op, \"" << t.name << "\", " << t.cName << ", " << t.dtype << ", \""
        << t.element << "\", " << device << ");\n";
    if (t.rank)
      out << "  checkRank(op, \"" << t.name << "\", " << t.cName << ", " << t.rank << ");\n";
  }
}

std::string boxedFunction(const std::string &name) {
  return "void " + name +
         "(StableIValue *tta_stack, uint64_t tta_num_args, uint64_t tta_num_outputs)";
}

/// The CUDA (and CPU) function: the checks, then the launch on the tensors' device's stream.
void writeLaunchFunction(std::ostream &out, const LibraryManifest &manifest,
                         const ManifestKernel &kernel, const OpSignature &sig,
                         const std::string &fn, const std::string &op) {
  out << boxedFunction(fn) << " {\n"
      << "  const char *op = \"" << op << "\";\n";
  writeArguments(out, sig, /*launch=*/true);
  out << "  int32_t device = -1;\n";
  writeTensorChecks(out, sig, "&device");
  out << "  STD_TORCH_CHECK(device >= 0, op, \": no tensor argument says which device to run on\");\n";
  std::vector<std::string> callArgs{"stream"};
  if (sig.gridSlot) {
    out << "  STD_TORCH_CHECK(grid.size() == 3, op, \": grid has \", grid.size(), \" values; it is [x, y, z]\");\n";
    for (int i = 0; i < 3; ++i)
      callArgs.push_back("checkedInt<uint32_t>(op, \"grid\", grid[" + std::to_string(i) + "])");
  }
  callArgs.insert(callArgs.end(), sig.callArgs.begin(), sig.callArgs.end());
  out << "  const DeviceGuardUnlessCurrent guard(device);\n"
      << "  void *stream = nullptr;\n"
      << "  TORCH_ERROR_CODE_CHECK(aoti_torch_get_current_cuda_stream(device, &stream));\n"
      << "  const triton_aot_status status = " << manifest.prefix << "_" << kernel.name
      << "(" << join(callArgs) << ");\n"
      << "  STD_TORCH_CHECK(status == TRITON_AOT_SUCCESS, op, \": \", " << manifest.prefix
      << "_last_error());\n"
      << "}\n\n";
}

/// Meta: the ops write their arguments in place and return nothing; nothing to compute, the
/// element types (and descriptors' ranks) to check.
void writeMetaFunction(std::ostream &out, const OpSignature &sig, const std::string &fn,
                       const std::string &op) {
  out << boxedFunction(fn) << " {\n"
      << "  const char *op = \"" << op << "\";\n";
  writeArguments(out, sig, /*launch=*/false);
  writeTensorChecks(out, sig, "nullptr");
  if (sig.tensors.empty())
    out << "  (void)op;\n";
  out << "}\n\n";
}

/// One kernel's CUDA and Meta functions; its registration lines go to \p defs / \p cudaImpls /
/// \p metaImpls, the dtypes its checks use to \p dtypes.
Status writeKernel(std::ostream &out, const LibraryManifest &manifest, const ManifestKernel &kernel,
                   const std::string &ns, std::string &defs, std::string &cudaImpls,
                   std::string &metaImpls, std::map<std::string, std::string> &dtypes) {
  auto sig = opSignature(kernel);
  if (!sig)
    return sig.takeError();
  dtypes.insert(sig->dtypes.begin(), sig->dtypes.end());
  const std::string fn = "tta_" + kernel.name;
  const std::string op = opName(ns, kernel.name);
  out << "// " << op << ": " << kernel.function << " of " << kernel.source << "\n";
  writeLaunchFunction(out, manifest, kernel, *sig, fn + "_cuda", op);
  writeMetaFunction(out, *sig, fn + "_meta", op);
  defs += "  m.def(\"" + kernel.name + "(" + join(sig->schemaArgs) + ") -> ()\");\n";
  cudaImpls += "  m.impl(\"" + kernel.name + "\", &" + fn + "_cuda);\n";
  metaImpls += "  m.impl(\"" + kernel.name + "\", &" + fn + "_meta);\n";
  return ok();
}

const char *const kPreamble = R"cpp(// Generated by triton-aot-ld --torch-ops: the kernels of this library as PyTorch operators,
// registered through PyTorch's stable C ABI (torch 2.10 and later). Build it against the oldest
// torch it must load in, with -DUSE_CUDA; see docs/torch.md.
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/c/shim.h>
#include <torch/csrc/stable/library.h>
#include <torch/headeronly/util/Exception.h>
#include <triton_aot/runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>

)cpp";

const char *const kHelpers = R"cpp(namespace {

// Each op is a boxed function, as TORCH_BOX would make of a typed one: the dispatcher passes a
// stack of StableIValues, one per schema argument, and the op owns the tensors and lists on it
// (new handles, deleted by the op). Written out for each op so that a call allocates nothing and
// asks torch each question once, through the shim's C functions.

// The stack the schema gives: as many arguments as the op takes, no result.
void checkStack(uint64_t numArgs, uint64_t numOutputs, uint64_t args) {
  STD_TORCH_CHECK(numArgs == args, "Registered schema has ", numArgs,
                  " args, but the kernel to box has ", args);
  STD_TORCH_CHECK(numOutputs == 0, "Registered schema has ", numOutputs,
                  " outputs, but the kernel to box has ", 0);
}

// A tensor argument: the new handle the dispatcher put on the stack, deleted once when the op
// returns or throws (what torch::stable::Tensor does, without allocating a shared_ptr per call).
class TensorArg {
public:
  explicit TensorArg(StableIValue value)
      : handle_(torch::stable::detail::to<AtenTensorHandle>(value)) {}
  ~TensorArg() { (void)aoti_torch_delete_tensor_object(handle_); }
  TensorArg(const TensorArg &) = delete;
  TensorArg &operator=(const TensorArg &) = delete;

  int32_t dtype() const { // as the running torch numbers dtypes (aoti_torch_dtype_*())
    int32_t dtype = -1;
    TORCH_ERROR_CODE_CHECK(aoti_torch_get_dtype(handle_, &dtype));
    return dtype;
  }
  int32_t device_type() const {
    int32_t type = -1;
    TORCH_ERROR_CODE_CHECK(aoti_torch_get_device_type(handle_, &type));
    return type;
  }
  int32_t get_device_index() const {
    int32_t index = -1;
    TORCH_ERROR_CODE_CHECK(aoti_torch_get_device_index(handle_, &index));
    return index;
  }
  int64_t dim() const {
    int64_t dim = 0;
    TORCH_ERROR_CODE_CHECK(aoti_torch_get_dim(handle_, &dim));
    return dim;
  }
  int64_t size(int64_t d) const {
    int64_t size = 0;
    TORCH_ERROR_CODE_CHECK(aoti_torch_get_size(handle_, d, &size));
    return size;
  }
  int64_t stride(int64_t d) const {
    int64_t stride = 0;
    TORCH_ERROR_CODE_CHECK(aoti_torch_get_stride(handle_, d, &stride));
    return stride;
  }
  void *data_ptr() const {
    void *data = nullptr;
    TORCH_ERROR_CODE_CHECK(aoti_torch_get_data_ptr(handle_, &data));
    return data;
  }

private:
  AtenTensorHandle handle_;
};

// An int[] argument: the list the dispatcher put on the stack, deleted when the op returns or
// throws; its values read on demand.
class IntListArg {
public:
  explicit IntListArg(StableIValue value)
      : list_(torch::stable::detail::to<StableListHandle>(value)) {}
  ~IntListArg() { (void)torch_delete_list(list_); }
  IntListArg(const IntListArg &) = delete;
  IntListArg &operator=(const IntListArg &) = delete;

  size_t size() const {
    size_t size = 0;
    TORCH_ERROR_CODE_CHECK(torch_list_size(list_, &size));
    return size;
  }
  int64_t operator[](size_t i) const {
    StableIValue value = 0;
    TORCH_ERROR_CODE_CHECK(torch_list_get_item(list_, i, &value));
    return torch::stable::detail::to<int64_t>(value);
  }

private:
  StableListHandle list_;
};

// The GPU, as the running torch numbers device types (asked once, when the library loads).
const int32_t kCuda = aoti_torch_device_type_cuda();

// The launch's device made current for the op when it is not; the common call, on the current
// device, creates no guard.
class DeviceGuardUnlessCurrent {
public:
  explicit DeviceGuardUnlessCurrent(int32_t device) {
    int32_t current = -1;
    TORCH_ERROR_CODE_CHECK(aoti_torch_get_current_device_index(&current));
    if (current != device) {
      TORCH_ERROR_CODE_CHECK(aoti_torch_create_device_guard(device, &guard_));
    }
  }
  ~DeviceGuardUnlessCurrent() {
    if (guard_)
      (void)aoti_torch_delete_device_guard(guard_);
  }
  DeviceGuardUnlessCurrent(const DeviceGuardUnlessCurrent &) = delete;
  DeviceGuardUnlessCurrent &operator=(const DeviceGuardUnlessCurrent &) = delete;

private:
  DeviceGuardHandle guard_ = nullptr;
};

// A tensor argument: of the kernel's element type; for a launch also on the GPU, on the
// device of the others (a Meta call checks the type only: tracing catches it too).
[[maybe_unused]] void checkTensor(const char *op, const char *param, const TensorArg &t,
                                  int32_t dtype, const char *element, int32_t *launchDevice) {
  STD_TORCH_CHECK(t.dtype() == dtype, op, ": ", param, " must be a tensor of ", element,
                  " elements (the kernel's type)");
  if (!launchDevice)
    return;
  int32_t &device = *launchDevice;
  const int32_t here = t.get_device_index();
  if (device >= 0 && here == device)
    return; // on the GPU of the tensors before it (a CPU tensor's index is -1)
  STD_TORCH_CHECK(t.device_type() == kCuda, op, ": ", param, " must be a tensor on the GPU");
  if (device < 0)
    device = here;
  STD_TORCH_CHECK(here == device, op, ": ", param, " is on device ", here,
                  ", the tensors before it on device ", device);
}

// A tensor a descriptor is made of: as many dimensions as the kernel's descriptor.
[[maybe_unused]] void checkRank(const char *op, const char *param, const TensorArg &t,
                                int64_t rank) {
  const int64_t dim = t.dim();
  STD_TORCH_CHECK(dim == rank, op, ": ", param, " must be a ", rank,
                  "-dimensional tensor (the kernel's tensor descriptor), not ", dim,
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
  std::ostringstream kernels;
  std::string defs, cudaImpls, metaImpls;
  std::map<std::string, std::string> dtypes;
  for (const ManifestKernel &kernel : manifest.kernels)
    if (Status s = writeKernel(kernels, manifest, kernel, ns, defs, cudaImpls, metaImpls, dtypes);
        !s)
      return s.takeError();
  std::ostringstream out;
  out << kPreamble << "#include \"" << manifest.name << ".h\"\n\n" << kHelpers;
  if (!dtypes.empty()) {
    out << "// The kernels' element types, as the running torch numbers dtypes (asked once).\n";
    for (const auto &[constant, shimFunction] : dtypes)
      out << "const int32_t " << constant << " = " << shimFunction << ";\n";
    out << "\n";
  }
  out << kernels.str() << "} // namespace\n\n"
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
