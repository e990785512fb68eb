"""python -m triton_aot.link: upstream ``triton.tools.link``'s command line and outputs.

Reads the headers compile.py (upstream's or triton_aot.compile's) writes, and writes one
``<out>.h``/``<out>.c`` pair: per group of configs (``<name>_<algo_info>``) a launcher that picks the
hint variant the arguments satisfy, and ``<name>(stream, args..., algo_id)``, ``<name>_default``,
``load_<name>``/``unload_<name>``, ``<name>_get_num_algos``, as upstream's link.py does.
"""
import os
import re
import sys
from argparse import ArgumentParser
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    __package__ = "triton_aot"

from triton_aot._upstream import FrontError, fail  # noqa: E402

PROG = "python -m triton_aot.link"

_DIRECTIVE = re.compile(r"^//\s*tt-linker:\s*(\w+):(.+):(.+)$")
_BACKEND = re.compile(r"^//\s*tt-linker-backend:\s*(\w+)\s*$")
_VARIANT = re.compile(r"^(\w+)_([0-9a-f]{8})_((?:\d+[cd]?)*)$")
_C_PARAM = re.compile(r"^\s*([A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s*$")
_C_TYPES = {"CUdeviceptr", "hipDeviceptr_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
            "uint16_t", "uint32_t", "uint64_t", "float", "double"}


def _every_index_hints(suffix, count):
    """The hints of a Triton 3.6 suffix, which names every parameter's index in order, each
    followed by c (specialized to 1) or d (divisible by 16) when hinted; None when the suffix is
    not one (then it is 3.7's, the hinted parameters only)."""
    hints, rest, i = [], suffix, 0
    # The C parameters first, then the constexprs' indices, which follow them in the suffix
    # ("...10d11c121314" for 12 C parameters and three constexprs) and have no C counterpart.
    while rest:
        if not rest.startswith(str(i)):
            return None
        rest = rest[len(str(i)):]
        letter = rest[:1] if rest[:1] in ("c", "d") else ""
        if i < count:
            hints.append({"c": 1, "d": 16}.get(letter))
        rest = rest[len(letter):]
        i += 1
    return hints if count and i >= count else None


class Variant:
    """One compiled kernel, as its header's ``// tt-linker:`` line describes it."""

    def __init__(self, where, function, c_signature, algo_info):
        m = _VARIANT.match(function)
        if not m:
            raise FrontError(f"{where}: '{function}' is not <name>_<8 hex digits>_<hint suffix> "
                             "(a header compile.py wrote?)")
        self.function, self.name, self.sig_hash, suffix = function, m.group(1), m.group(2), m.group(3)
        self.algo = f"{self.name}_{algo_info}"
        if not re.match(r"^\w+$", self.algo):
            raise FrontError(f"{where}: algo info '{algo_info}' is not part of a C identifier")
        self.types, self.args = [], []
        for i, part in enumerate(c_signature.split(",")):
            pm = _C_PARAM.match(part)
            if not pm or pm.group(1) not in _C_TYPES:
                raise FrontError(f"{where}: parameter {i} ('{part.strip()}') is not '<C type> <name>' "
                                 f"with a type of {', '.join(sorted(_C_TYPES))}")
            self.types.append(pm.group(1))
            self.args.append(pm.group(2))
        self.hints = _every_index_hints(suffix, len(self.args))
        if self.hints is None:  # Triton 3.7 on: only the hinted parameters' indices
            self.hints = [None] * len(self.args)
            for index, kind in re.findall(r"(\d+)([cd])", suffix):
                if int(index) >= len(self.args):
                    raise FrontError(f"{where}: hint suffix '{suffix}' names parameter {index}, beyond "
                                     f"the {len(self.args)} of the signature")
                self.hints[int(index)] = 1 if kind == "c" else 16
        self.num_specs = sum(h is not None for h in self.hints)

    def full_signature(self):
        return ", ".join(f"{t} {a}" for t, a in zip(self.types, self.args))

    def signature(self):
        return ", ".join(f"{t} {a}" for t, a, h in zip(self.types, self.args, self.hints) if h != 1)

    def call_args(self):
        return ", ".join(a for a, h in zip(self.args, self.hints) if h != 1)


def read_headers(paths):
    algos = {}  # algo -> [Variant], in the order the headers were given, as upstream's
    backend = None
    for path in paths:
        try:
            lines = Path(path).read_text().splitlines()
        except OSError as err:
            raise FrontError(f"{path}: {err.strerror}") from None
        found = False
        for number, line in enumerate(lines, 1):
            where = f"{path}:{number}"
            m = _BACKEND.match(line)
            if m:
                if m.group(1) not in ("cuda", "hip"):
                    raise FrontError(f"{where}: backend '{m.group(1)}' is neither cuda nor hip")
                if backend is not None and backend[0] != m.group(1):
                    raise FrontError(f"{where}: backend {m.group(1)}, but {backend[1]} says {backend[0]}: "
                                     "one library links kernels of one backend")
                backend = backend or (m.group(1), where)
                continue
            m = _DIRECTIVE.match(line)
            if not m:
                continue
            found = True
            variant = Variant(where, m.group(1), m.group(2), m.group(3))
            group = algos.setdefault(variant.algo, [])
            for other in group + [v for g in algos.values() for v in g[:1]]:
                if other.types != variant.types or other.name != variant.name:
                    raise FrontError(
                        f"{where}: {variant.function}({variant.full_signature()}) does not match "
                        f"{other.function}({other.full_signature()}): every config of one kernel takes "
                        "the same C parameters")
            group.append(variant)
        if not found:
            raise FrontError(f"{path}: no '// tt-linker:' line: not a header compile.py wrote")
    if not algos:
        raise FrontError("no headers to link")
    return algos, (backend[0] if backend else "cuda")


_PRELUDE = {
    "cuda": "#include <cuda.h>\n\ntypedef CUstream TT_StreamTy;\ntypedef CUresult TT_ResultTy;\n\n"
            "#define TT_ERROR_INVALID_VALUE CUDA_ERROR_INVALID_VALUE\n",
    "hip": "#define __HIP_PLATFORM_AMD__\n#include <hip/hip_runtime.h>\n\ntypedef hipStream_t TT_StreamTy;\n"
           "typedef hipError_t TT_ResultTy;\n\n#define TT_ERROR_INVALID_VALUE hipErrorInvalidValue\n",
}


def _condition(arg, c_type, hint):
    if hint == 1:
        return f"({arg} == 1)"
    if c_type in ("CUdeviceptr", "hipDeviceptr_t"):
        return f"((uintptr_t){arg} % 16 == 0)"  # hipDeviceptr_t is a void *
    return f"({arg} % 16 == 0)"


def link_sources(algos, backend, out_stem):
    first = next(iter(algos.values()))[0]
    name, full = first.name, first.full_signature()
    guard = re.sub(r"\W", "_", out_stem.upper()) + "_H"
    h = [f"#ifndef TT_LINK_{guard}", f"#define TT_LINK_{guard}", "", "#include <stdint.h>",
         _PRELUDE[backend], "#ifdef __cplusplus", 'extern "C" {', "#endif", ""]
    for algo in algos:
        h += [f"TT_ResultTy {algo}(TT_StreamTy stream, {full});", f"void load_{algo}(void);",
              f"void unload_{algo}(void);", ""]
    h += [f"int {name}_get_num_algos(void);", "",
          f"TT_ResultTy {name}_default(TT_StreamTy stream, {full});",
          f"TT_ResultTy {name}(TT_StreamTy stream, {full}, int algo_id);",
          f"void load_{name}(void);", f"void unload_{name}(void);", "",
          "#ifdef __cplusplus", "}", "#endif", "", "#endif", ""]

    c = [f"/* Written by triton-aot's link.py front (python -m triton_aot.link) */",
         f'#include "{Path(out_stem).name}.h"', ""]
    for algo, variants in algos.items():
        ordered = sorted(variants, key=lambda v: -v.num_specs)  # most specialized first, stable
        c.append(f"// launcher for: {algo}")
        for v in ordered:
            params = v.signature()
            c.append(f"TT_ResultTy {v.function}(TT_StreamTy stream{', ' + params if params else ''});")
            c += [f"void load_{v.function}(void);", f"void unload_{v.function}(void);"]
        body, used = [], set()
        for v in ordered:
            conds = " && ".join(_condition(a, t, h) for a, t, h in zip(v.args, v.types, v.hints)
                              if h is not None)
            call_args = v.call_args()
            used.update(a for a, h in zip(v.args, v.hints) if h is not None)
            used.update(a for a, h in zip(v.args, v.hints) if h != 1)
            call = f"{v.function}(stream{', ' + call_args if call_args else ''})"
            if conds:
                body += [f"  if ({conds})", f"    return {call};"]
            else:
                body.append(f"  return {call};")
                break  # a variant without hints takes every call: later ones are unreachable
        else:
            body.append("  return TT_ERROR_INVALID_VALUE;  /* no variant's hints hold for these arguments */")
        c += ["", f"TT_ResultTy {algo}(TT_StreamTy stream, {full}) {{"]
        c += [f"  (void){a};" for a in first.args if a not in used]
        c += body
        c.append("}")
        for mode in ("load", "unload"):
            c.append(f"void {mode}_{algo}(void) {{")
            c += [f"  {mode}_{v.function}();" for v in ordered]
            c.append("}")
        c.append("")
    c.append(f"typedef TT_ResultTy (*{name}_kernel_func_t)(TT_StreamTy stream, {full});")
    c.append(f"static const {name}_kernel_func_t {name}_kernels[] = {{")
    c += [f"  {algo}," for algo in algos]
    c += ["};", "",
          f"int {name}_get_num_algos(void) {{",
          f"  return (int)(sizeof({name}_kernels) / sizeof({name}_kernels[0]));", "}", "",
          f"TT_ResultTy {name}(TT_StreamTy stream, {full}, int algo_id) {{",
          f"  if (algo_id < 0 || algo_id >= {name}_get_num_algos())",
          "    return TT_ERROR_INVALID_VALUE;",
          f"  return {name}_kernels[algo_id](stream, {', '.join(first.args)});", "}", ""]
    for mode in ("load", "unload"):
        c.append(f"void {mode}_{name}(void) {{")
        c += [f"  {mode}_{algo}();" for algo in algos]
        c += ["}", ""]
    c += [f"TT_ResultTy {name}_default(TT_StreamTy stream, {full}) {{",
          f"  return {name}(stream, {', '.join(first.args)}, 0);", "}", ""]
    return "\n".join(h), "\n".join(c)


def main(argv=None):
    parser = ArgumentParser(prog=PROG, description=(
        "Triton ahead-of-time linker, upstream link.py's command line: links the headers compile.py "
        "wrote into one dispatcher, <out>.h and <out>.c."))
    parser.add_argument("headers", nargs="+", help="headers compile.py wrote")
    parser.add_argument("--out", "-o", type=Path, help="output stem: writes <out>.h and <out>.c")
    parser.add_argument("--prefix", type=str, default="",
                        help="accepted as upstream's link.py accepts it, and, as there, unused")
    args = parser.parse_args(argv)
    if args.out is None:
        fail(PROG, "--out/-o is required: the stem of the <out>.h and <out>.c to write")
    try:
        algos, backend = read_headers(args.headers)
        h_text, c_text = link_sources(algos, backend, str(args.out.with_suffix("")))
        for suffix, text in ((".h", h_text), (".c", c_text)):
            path = args.out.with_suffix(suffix)
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(text)
            os.replace(tmp, path)
    except FrontError as err:
        fail(PROG, str(err))
    except OSError as err:
        fail(PROG, f"{err.filename}: {err.strerror}" if err.filename else str(err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
