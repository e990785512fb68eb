; Tiny AMDGPU kernels for the image_info unit tests (tests/data/images/README.md).
target triple = "amdgcn-amd-amdhsa"

@tile = internal addrspace(3) global [256 x float] undef, align 4

; scale_lds: 1 KiB of static LDS (group segment).
define amdgpu_kernel void @scale_lds(ptr addrspace(1) %out, ptr addrspace(1) %in) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %src = getelementptr float, ptr addrspace(1) %in, i32 %tid
  %v = load float, ptr addrspace(1) %src
  %slot = getelementptr [256 x float], ptr addrspace(3) @tile, i32 0, i32 %tid
  store float %v, ptr addrspace(3) %slot
  call void @llvm.amdgcn.s.barrier()
  %next = add i32 %tid, 1
  %wrap = and i32 %next, 255
  %slot2 = getelementptr [256 x float], ptr addrspace(3) @tile, i32 0, i32 %wrap
  %w = load float, ptr addrspace(3) %slot2
  %r = fmul float %w, 2.0
  %dst = getelementptr float, ptr addrspace(1) %out, i32 %tid
  store float %r, ptr addrspace(1) %dst
  ret void
}

; private_array: a dynamically indexed array lives in scratch (private segment).
define amdgpu_kernel void @private_array(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %j) {
  %buf = alloca [64 x i32], align 4, addrspace(5)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %k = phi i32 [ 0, %0 ], [ %k1, %loop ]
  %src = getelementptr i32, ptr addrspace(1) %in, i32 %k
  %v = load volatile i32, ptr addrspace(1) %src
  %slot = getelementptr [64 x i32], ptr addrspace(5) %buf, i32 0, i32 %k
  store i32 %v, ptr addrspace(5) %slot
  %k1 = add i32 %k, 1
  %done = icmp eq i32 %k1, 64
  br i1 %done, label %exit, label %loop
exit:
  %idx = and i32 %j, 63
  %p = getelementptr [64 x i32], ptr addrspace(5) %buf, i32 0, i32 %idx
  %r = load i32, ptr addrspace(5) %p
  %dst = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %dst
  ret void
}

; spill_vgprs: two <32 x float> values live at once under a budget of 16 VGPRs must spill.
define amdgpu_kernel void @spill_vgprs(ptr addrspace(1) %out, ptr addrspace(1) %in) #0 {
  %a = load volatile <32 x float>, ptr addrspace(1) %in
  %p = getelementptr <32 x float>, ptr addrspace(1) %in, i32 1
  %b = load volatile <32 x float>, ptr addrspace(1) %p
  %c = fmul <32 x float> %a, %b
  store <32 x float> %c, ptr addrspace(1) %out
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()

attributes #0 = { "amdgpu-num-vgpr"="16" }
