"""What the compatibility front shares: upstream's naming rules, the tools it runs, the C it writes.

Upstream's ``triton.tools.compile`` and ``triton.tools.link`` (Triton 3.6-3.9) are scripts whose
outputs other scripts and builds depend on: file names (``<out>.<sig_hash>_<suffix>.c/.h``),
function names (``<out_name>_<sig_hash>_<suffix>``), the ``// tt-linker:`` lines that ``link.py``
reads, and the C API. This module reproduces those rules from upstream's documented behaviour;
the compiling itself is ``triton-aot-cc``'s (its worker pool, cache and diagnostics).
"""
import hashlib
import json
import os
import re
import shutil
import sys
from pathlib import Path


class FrontError(Exception):
    """An error the front reports as ``<prog>: error: <message>`` and exit status 1."""


def fail(prog, message):
    sys.stderr.write(f"{prog}: error: {message}\n")
    sys.exit(1)


# --- tools ---------------------------------------------------------------------------------------

def find_tool(name):
    """The installed tool: the wheel's own bin/ first, then PATH (a CMake install or build tree)."""
    here = Path(__file__).resolve().parent / "bin" / name
    if os.access(here, os.X_OK):
        return str(here)
    env = os.environ.get("TRITON_AOT_BIN_DIR")
    if env and os.access(os.path.join(env, name), os.X_OK):
        return os.path.join(env, name)
    found = shutil.which(name)
    if found:
        return found
    raise FrontError(f"{name} not found: install triton-aot (pip install triton-aot), put its bin/ on "
                     f"PATH, or set TRITON_AOT_BIN_DIR to the directory that holds {name}")


def default_cache_dir():
    """The compile cache shared by every run of the front, so a rerun compiles nothing."""
    if os.environ.get("TRITON_AOT_CACHE_DIR"):
        return os.environ["TRITON_AOT_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "triton-aot")


# --- upstream's naming ---------------------------------------------------------------------------

def number_or_none(text):
    """upstream compile.py's reading of a signature entry or hint: an int, else a float, else None."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


class UpstreamNames:
    """The names upstream compile.py derives from a signature, num_warps and num_stages."""

    def __init__(self, signature_text, num_warps, num_stages, out_name, every_index=False):
        entries = [s.strip(" ") for s in signature_text.split(",")]
        self.entries = entries
        meta_sig = f"warps{num_warps}xstages{num_stages}"
        self.sig_hash = hashlib.sha256(" ".join(entries + [meta_sig]).encode()).hexdigest()[:8]
        # hints by position; a hint that is no number is no hint, as upstream reads it
        hints = {}
        for i, entry in enumerate(entries):
            if ":" in entry:
                value = number_or_none(entry.split(":")[1])
                if value is not None:
                    if value not in (1, 16):
                        raise FrontError(f"signature entry {i} ('{entry}'): only 1 and 16 are valid hints, "
                                         f"got {entry.split(':')[1]}")
                    hints[i] = value
        self.hints = hints
        constants = [(i, number_or_none(e)) for i, e in enumerate(entries)]
        constants = [(i, v) for i, v in constants if v is not None]
        constants += [(i, 1) for i, v in hints.items() if v == 1]
        self.constant_positions = [(i, v) for i, v in constants]
        self.algo_info = "x".join(str(v) for _, v in constants) + "_" + meta_sig
        letters = {i: "c" if hint == 1 else "d" for i, hint in hints.items()}
        if every_index:  # Triton 3.6: every parameter's index, hinted ones followed by c or d
            self.suffix = "".join(f"{i}{letters.get(i, '')}" for i in range(len(entries)))
        else:  # Triton 3.7 on: the hinted parameters only
            self.suffix = "".join(f"{i}{letters[i]}" for i in sorted(letters))
        self.func_name = f"{out_name}_{self.sig_hash}_{self.suffix}"


def installed_names_every_index():
    """Whether the installed Triton's compile.py names every parameter's index in the suffix (3.6)
    or only the hinted ones' (3.7 on). Read from that script itself, the one authority."""
    import importlib.util
    spec = importlib.util.find_spec("triton")
    if not spec or not spec.submodule_search_locations:
        return False
    script = Path(list(spec.submodule_search_locations)[0]) / "tools" / "compile.py"
    try:
        return "suffix += str(i)\n" in script.read_text()
    except OSError:
        return False


# --- C types -------------------------------------------------------------------------------------

_SCALAR_C = {
    "i1": "int8_t", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
    "u1": "uint8_t", "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
    # exact widths: upstream passes every float as a double, which a 4-byte fp32 parameter reads
    # as the double's low half; fp16/bf16 are their 2-byte bits, as triton-aot's own C API takes them
    "fp16": "uint16_t", "bf16": "uint16_t", "fp32": "float", "f32": "float", "fp64": "double",
}


def c_type(triton_type, backend):
    if triton_type.startswith("*"):
        return "CUdeviceptr" if backend == "cuda" else "hipDeviceptr_t"
    if triton_type in _SCALAR_C:
        return _SCALAR_C[triton_type]
    raise FrontError(f"parameter type '{triton_type}' has no C type in the compatibility front")


# --- compile.py's outputs ------------------------------------------------------------------------

_BACKEND = {
    # the backend's spelling of each thing the C names
    "cuda": dict(include="#include <cuda.h>", stream="CUstream", result="CUresult", module="CUmodule",
                 function="CUfunction", ptr="CUdeviceptr", success="CUDA_SUCCESS",
                 invalid="CUDA_ERROR_INVALID_VALUE", image="CUBIN_NAME", image_sfx="cubin",
                 load="cuModuleLoadData", get="cuModuleGetFunction", unload="cuModuleUnload",
                 launch="cuLaunchKernel"),
    "hip": dict(include="#define __HIP_PLATFORM_AMD__\n#include <hip/hip_runtime.h>",
                stream="hipStream_t", result="hipError_t", module="hipModule_t",
                function="hipFunction_t", ptr="hipDeviceptr_t", success="hipSuccess",
                invalid="hipErrorInvalidValue", image="HSACO_NAME", image_sfx="hsaco",
                load="hipModuleLoadData", get="hipModuleGetFunction", unload="hipModuleUnload",
                launch="hipModuleLaunchKernel"),
}


def _field(meta, path, kind, where):
    value = meta
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            raise FrontError(f"{where}: '{path}' is missing")
        value = value[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise FrontError(f"{where}: '{path}' is not a {kind.__name__}")
    return value


_C_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class KernelImage:
    """What the C of one compiled kernel needs, from triton-aot-cc's metadata file and image.
    The file has passed its reader in contract/ (triton-aot-ld --inspect) first; what is read
    here is checked again where it reaches C (names are C identifiers, the image is the one the
    metadata hashes), and what compile.py's C cannot launch is refused with the reason."""

    def __init__(self, meta_path):
        where = str(meta_path)
        meta = json.loads(Path(meta_path).read_text())
        if meta.get("schema") != "triton-aot-kernel":
            raise FrontError(f"{where}: not a triton-aot kernel metadata file")
        self.backend = _field(meta, "target.backend", str, where)
        if self.backend not in _BACKEND:
            raise FrontError(f"{where}: backend '{self.backend}' is neither cuda nor hip")
        self.entry = _field(meta, "launch.entry", str, where)
        self.shared = _field(meta, "launch.shared", int, where)
        self.num_warps = _field(meta, "launch.num_warps", int, where)
        self.warp_size = _field(meta, "launch.warp_size", int, where)
        self.num_ctas = _field(meta, "launch.num_ctas", int, where)
        if not _C_NAME.match(self.entry):
            raise FrontError(f"{where}: 'launch.entry' ('{self.entry}') is not a C identifier")
        for path in ("global_scratch", "profile_scratch"):
            if _field(meta, f"launch.{path}.size", int, where) > 0:
                raise FrontError(
                    f"the kernel needs {path.replace('_', ' ')} ({meta['launch'][path]['size']} bytes a "
                    "program), which compile.py's C cannot allocate: declare it with triton_add_kernel() "
                    "or triton-aot-cc/triton-aot-ld, whose runtime allocates it per launch")
        if self.num_ctas != 1 or _field(meta, "launch.pdl", bool, where) or \
                _field(meta, "launch.cooperative", bool, where) or \
                _field(meta, "launch.cluster_dims", list, where) != [1, 1, 1]:
            raise FrontError("the kernel needs clusters, PDL or a cooperative launch, which compile.py's "
                             "C cannot make: declare it with triton_add_kernel() instead")
        self.params = []
        self.constants = []  # (name, C type, value): what a grid expression may name besides arguments
        for i, p in enumerate(_field(meta, "params", list, where)):
            kind = _field(p, "kind", str, f"{where}: params[{i}]")
            name = _field(p, "name", str, f"{where}: params[{i}]")
            if not _C_NAME.match(name):
                raise FrontError(f"{where}: params[{i}].name ('{name}') is not a C identifier")
            ptype = _field(p, "type", str, f"{where}: params[{i}]")
            self.params.append((kind, name, ptype))
            value = p.get("value")
            if kind == "specialized_to_one":
                self.constants.append((name, "int64_t", 1))
            elif kind == "constexpr" and isinstance(value, (bool, int)):
                self.constants.append((name, "int64_t", int(value)))
        kinds = {k for k, _, _ in self.params}
        unknown = kinds - {"pointer", "scalar", "specialized_to_one", "constexpr", "global_scratch",
                           "profile_scratch"}
        if unknown:
            raise FrontError(f"parameters of kind {', '.join(sorted(unknown))} (tensor descriptors) have no "
                             "C form in compile.py's API: declare the kernel with triton_add_kernel()")
        images = [im for im in _field(meta, "images", list, where) if im.get("kind") in ("cubin", "hsaco")]
        if len(images) != 1:
            raise FrontError(f"{where}: expected one cubin or hsaco image, found {len(images)}")
        image_path = Path(meta_path).parent / _field(images[0], "file", str, where)
        if image_path.parent != Path(meta_path).parent:
            raise FrontError(f"{where}: images[].file must name a file beside the metadata")
        self.image = image_path.read_bytes()
        digest = hashlib.sha256(self.image).hexdigest()
        if digest != _field(images[0], "sha256", str, where):
            raise FrontError(f"{image_path}: its sha256 is not the one its metadata records")


def _hex_rows(data):
    rows = []
    for start in range(0, len(data), 16):
        rows.append("  " + ", ".join(f"0x{b:02x}" for b in data[start:start + 16]) + ",")
    return "\n".join(rows)


def kernel_c_and_h(image, names, grid, kernel_function, num_stages):
    """The .c and .h upstream compile.py writes for one kernel, with the same names and API:
    `<func>(stream, args...)` without the constexpr and :1 parameters, `load_<func>`,
    `unload_<func>`, and the `// tt-linker:` line link.py reads (its signature keeps the :1 ones)."""
    b = _BACKEND[image.backend]
    k = names.func_name
    call_params = [(n, t) for kind, n, t in image.params if kind in ("pointer", "scalar")]
    full_params = [(n, t) for kind, n, t in image.params if kind in ("pointer", "scalar", "specialized_to_one")]
    signature = ", ".join(f"{c_type(t, image.backend)} {n}" for n, t in call_params)
    full_signature = ", ".join(f"{c_type(t, image.backend)} {n}" for n, t in full_params)
    params_decl = f"{b['stream']} stream" + (f", {signature}" if signature else "")
    arg_ptrs = []
    for kind, n, _ in image.params:
        if kind in ("pointer", "scalar"):
            arg_ptrs.append(f"&{n}")
        elif kind == "global_scratch":
            arg_ptrs.append("&global_scratch")
        elif kind == "profile_scratch":
            arg_ptrs.append("&profile_scratch")
    uses_global = "&global_scratch" in arg_ptrs
    uses_profile = "&profile_scratch" in arg_ptrs
    param_names = [n for _, n, _ in image.params]
    constants = [f"{param_names[i]}={v}" for i, v in names.constant_positions if i < len(param_names)]
    docstring = ", ".join(constants + [f"num_warps={image.num_warps}", f"num_stages={num_stages}"])

    h = f"""#ifndef TT_KERNEL_INCLUDES
#define TT_KERNEL_INCLUDES

{b['include']}
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#endif

// tt-linker-backend: {image.backend}

#ifdef __cplusplus
extern "C" {{
#endif
void unload_{k}(void);
void load_{k}(void);
// tt-linker: {k}:{full_signature}:{names.algo_info}
{b['result']} {k}({params_decl});
#ifdef __cplusplus
}}
#endif
"""
    # the grid may name a parameter specialized to 1 or an integer constexpr, as the call did
    launcher_names = {"stream", "args", "gX", "gY", "gZ", "global_scratch", "profile_scratch"}
    consts = "".join(f"  const {ctype} {name} = {value};\n  (void){name};\n"
                     for name, ctype, value in image.constants if name not in launcher_names)
    stmts = []
    if uses_global:
        stmts.append(f"  {b['ptr']} global_scratch = 0;")
    if uses_profile:
        stmts.append(f"  {b['ptr']} profile_scratch = 0;")
    if arg_ptrs:
        stmts.append(f"  void *args[{len(arg_ptrs)}] = {{ {', '.join(arg_ptrs)} }};")
    else:
        stmts.append("  void **args = NULL;")
    shared_attr = ""
    if image.backend == "cuda" and image.shared > 49152:
        shared_attr = f"""
  if ({k}_load_status == CUDA_SUCCESS) {{
    /* more than 48 KiB of shared memory is opted into per function */
    CUdevice device;
    int optin = 0;
    {k}_load_status = cuCtxGetDevice(&device);
    if ({k}_load_status == CUDA_SUCCESS)
      {k}_load_status = cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device);
    if ({k}_load_status == CUDA_SUCCESS && optin < {image.shared})
      {k}_load_status = CUDA_ERROR_INVALID_VALUE;
    if ({k}_load_status == CUDA_SUCCESS)
      {k}_load_status = cuFuncSetAttribute({k}_func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, {image.shared});
  }}"""
    c = f"""/* Written by triton-aot's compile.py front (python -m triton_aot.compile): {kernel_function} */
#include <stdint.h>
#include <stddef.h>
{b['include']}

#define {b['image']} {k}_{b['image_sfx']}
{b['module']} {k}_mod = NULL;
{b['function']} {k}_func = NULL;
/* the result of the last load, returned by a launch that finds the kernel unloaded */
static {b['result']} {k}_load_status = {b['success']};
unsigned char {b['image']}[{len(image.image)}] = {{
{_hex_rows(image.image)}
}};

void unload_{k}(void) {{
  if ({k}_mod != NULL)
    {b['unload']}({k}_mod);
  {k}_mod = NULL;
  {k}_func = NULL;
}}

void load_{k}(void) {{
  if ({k}_func != NULL)
    return;
  {k}_load_status = {b['load']}(&{k}_mod, (const void *){b['image']});
  if ({k}_load_status == {b['success']})
    {k}_load_status = {b['get']}(&{k}_func, {k}_mod, "{image.entry}");{shared_attr}
  if ({k}_load_status != {b['success']}) {{
    if ({k}_mod != NULL)
      {b['unload']}({k}_mod);
    {k}_mod = NULL;
    {k}_func = NULL;
  }}
}}

/*
{docstring}
*/
{b['result']} {k}({params_decl}) {{
  if ({k}_func == NULL) {{
    load_{k}();
    if ({k}_func == NULL)
      return {k}_load_status != {b['success']} ? {k}_load_status : {b['invalid']};
  }}
{consts}  unsigned int gX = {grid[0]};
  unsigned int gY = {grid[1]};
  unsigned int gZ = {grid[2]};
{chr(10).join(stmts)}
  if (gX * gY * gZ == 0)
    return {b['invalid']};
  return {b['launch']}({k}_func, gX, gY, gZ, {image.num_warps} * {image.warp_size}, 1, 1, {image.shared},
                       stream, args, NULL);
}}
"""
    return c, h
