// Link models shared by the codegen tests.
#pragma once

#include "codegen_fixture.h"

namespace tta::link::testing {

/// "mk": add(x_ptr, y_ptr, out_ptr: *fp32, n_elements: i32, BLOCK) with configs "large"
/// (BLOCK=1024) and "small" (128), each an aligned variant (x_ptr:16 y_ptr:16 n_elements:16)
/// then a generic one; targets sm_80 and gfx90a:xnack-; both scratch pointers.
Library vectorAddLibrary(const std::string &name = "mk", const std::string &prefix = "");

/// "edge": everything link.py got wrong, in one library:
///  - scalars: every Triton scalar type, one kernel `scalars` (i1 i8 i16 i32 i64 u8 u16 u32 u64
///    fp16 bf16 fp32 fp64 and a pointer);
///  - `names`: parameters called int, default, stream, config, grid, args, variant, NULL,
///    int32_t, tta_launch and triton_aot_fail, float (0.5), negative (-3), bool and string
///    constexprs in three configs, the grid using the negative and bool ones;
///  - `one_fallback`: n:1 variant, an x:16 variant and a generic one (two argument lists);
///  - `one_only`: config "ones" has only n:1 variants (x:16 n:1, n:1; no fallback), config
///    "any" a generic one (so n stays in the API);
///  - `strict`: only x:16 y:16 variants (no generic), two configs;
///  - `empty_grid`: grid (n, m, 1) with no hints;
///  - `noargs`: no runtime parameters at all, grid N / 2 with N a constexpr per config;
///  - `k0` .. `k7`: eight more small kernels;
///  - `rows`: no grid expressions (the caller passes grid_x, grid_y, grid_z), a parameter named
///    grid_x, two configs.
Library edgeLibrary(const std::string &name = "edge", const std::string &prefix = "");

/// "td": tma(s: i32, a: tensordesc<fp16[64, 32]>, n: i32, b: tensordesc<bf16[2, 16, 64]>, BLOCK)
/// for sm_90a, configs "big" (boxes as declared) and "half" (outermost box halved), each an s:1
/// variant (s not passed: the descriptors' argument slots move) and a generic one; both scratch
/// pointers. Descriptor a: fp16 (6), 2 bytes, 64-byte swizzle (2); b: bf16 (9), 128-byte (3),
/// fp4_padded and shape_args_padded (to see the flags through).
Library tensorDescLibrary(const std::string &name = "td", const std::string &prefix = "");

/// "heur": forms(x: *fp32, n: i64, k: i32, s: fp32, FLAG: the caller's i32, BLOCK) with grid
/// (1, 1, 1) for sm_80, one config (BLOCK=64) whose 16 variants are every combination of four
/// bool heuristics tested at launch, True before False, FLAG outermost: FLAG = bool(FLAG) (a
/// heuristic input, not passed); WIDE = n ** 2 >= 1048576 || 2 ** k < s (an int power, a
/// float one with an exponent read at launch); ODD = int(s * 4) % 2 == 1 && n * k (int() of a
/// float, a product as a truth value); SHAPED = next_power_of_2(n) == BLOCK && s != NULL (a
/// scalar is never NULL). Every helper a heuristic's C calls.
Library heuristicFormsLibrary(const std::string &name = "heur");

/// "ce": loss(logits: *fp32, target: *i64, N: i32), the caller's grid, sm_90a: a parameter named
/// as the target parameter of <api>_select_config() (fla's cross entropy kernels).
Library targetParameterLibrary(const std::string &name = "ce");

/// "tuned": mm(a: *fp16, M: i32, N: i32, K: i64), grid (M, N, 1), configs small, tall, wide,
/// big, targets sm_80 and sm_90a, without tuning.
Library untunedLibrary(const std::string &name = "tuned");
/// A tuning table for it: cuda:90a tuned on (M, N) = (256, 64) small, (4096, 64) tall,
/// (256, 8192) wide, (4096, 8192) big (boundaries M 1024, N 724.08); cuda:80 not tuned.
nlohmann::json tunedTable();
/// untunedLibrary() with tunedTable() (written to \p dir) applied as triton-aot-ld --tuning does.
Library tunedLibrary(const fs::path &dir);

/// "tdt": tensorDescLibrary's tma, tuned on n for cuda:90a (half up to n = 1000, then big), the
/// table written to \p dir.
Library tunedTensorDescLibrary(const fs::path &dir);

} // namespace tta::link::testing
