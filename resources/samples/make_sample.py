#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes attention_sample.json: a small Kineto-format trace of naive vs fused attention.

It is the project's own sample (what `attnscope` opens with no arguments until live runs land):
per iteration, naive attention as QK^T GEMM, scale+softmax and PV GEMM kernels, then a fused
FlashAttention kernel, each launched by cudaLaunchKernel under an aten op, on an H200.
Durations follow a simple cost model (B=4, H=16, N=2048, D=128, bf16); they are illustrative.
"""
import json
import random

random.seed(7)
PID, TID, DEV, STREAM = 4242, 4242, 0, 7
events = [
    {"ph": "M", "name": "process_name", "pid": PID, "tid": 0, "ts": 0, "args": {"name": "python3"}},
    {"ph": "M", "name": "process_labels", "pid": PID, "tid": 0, "ts": 0, "args": {"labels": "CPU"}},
    {"ph": "M", "name": "thread_name", "pid": PID, "tid": TID, "ts": 0, "args": {"name": "thread 4242 (python3)"}},
    {"ph": "M", "name": "process_name", "pid": DEV, "tid": 0, "ts": 0, "args": {"name": "python3"}},
    {"ph": "M", "name": "process_labels", "pid": DEV, "tid": 0, "ts": 0, "args": {"labels": "GPU 0"}},
    {"ph": "M", "name": "thread_name", "pid": DEV, "tid": STREAM, "ts": 0, "args": {"name": "stream 7 "}},
]
B, H, N, D = 4, 16, 2048, 128
dims_qk = [[B, H, N, D], [B, H, D, N]]
dims_pv = [[B, H, N, N], [B, H, N, D]]
naive = [
    ("aten::matmul", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", 310.0, dims_qk),
    ("aten::_softmax", "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float, c10::BFloat16, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(c10::BFloat16*, c10::BFloat16 const*, int)", 520.0, [[B, H, N, N]]),
    ("aten::matmul", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", 305.0, dims_pv),
]
fused = ("aten::_flash_attention_forward", "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)", 240.0, [[B, N, H, D]] * 3)

cpu, gpu, corr, ext = 1000.0, 1100.0, 1, 1
def launch(op, kernel, dur_us, dims):
    global cpu, gpu, corr, ext
    op_start = cpu
    events.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": PID, "tid": TID, "ts": round(op_start, 3), "dur": 18.0,
                   "args": {"External id": ext, "Input Dims": dims, "Input type": ["c10::BFloat16"] * len(dims)}})
    events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": PID, "tid": TID, "ts": round(op_start + 6, 3),
                   "dur": 7.5, "args": {"External id": ext, "cbid": 211, "correlation": corr}})
    events.append({"ph": "s", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": PID, "tid": TID, "ts": round(op_start + 6, 3)})
    gpu = max(gpu, op_start + 20)
    d = round(dur_us * random.uniform(0.97, 1.05), 3)
    events.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": DEV, "tid": STREAM, "ts": round(gpu, 3), "dur": d,
                   "args": {"External id": ext, "device": DEV, "stream": STREAM, "correlation": corr,
                            "registers per thread": 168, "shared memory": 98304, "grid": [N // 128, H, B], "block": [384, 1, 1]}})
    events.append({"ph": "f", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": DEV, "tid": STREAM, "ts": round(gpu, 3), "bp": "e"})
    gpu += d + 2
    cpu += 25
    corr += 1
    ext += 1

for it in range(6):
    start = cpu
    for op in naive:
        launch(*op)
    events.append({"ph": "X", "cat": "user_annotation", "name": f"naive_attention#{it}", "pid": PID, "tid": TID,
                   "ts": round(start - 1, 3), "dur": round(cpu - start, 3)})
    cpu = max(cpu, gpu - 200)
    start = cpu
    launch(*fused)
    events.append({"ph": "X", "cat": "user_annotation", "name": f"flash_attention#{it}", "pid": PID, "tid": TID,
                   "ts": round(start - 1, 3), "dur": round(cpu - start, 3)})
    cpu = max(cpu, gpu - 200)

trace = {
    "schemaVersion": 1,
    "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150754820096, "computeMajor": 9,
                          "computeMinor": 0, "numSms": 132, "warpSize": 32}],
    "traceEvents": events,
    "traceName": "attention_sample.json",
    "displayTimeUnit": "ms",
}
with open("attention_sample.json", "w") as f:
    json.dump(trace, f, indent=1)
    f.write("\n")
