#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The experiment of "Profiling in PyTorch (Part 3): Attention is all you profile", re-run.

One causal attention in six variants, each forward inside record_function("attn_fwd"), profiled with
torch.profiler (shapes recorded) and saved as a Kineto trace AttnScope opens:

  naive      scores = q @ kᵀ; * scale; .masked_fill(mask, -inf) (out of place); softmax; @ v
  inplace    the same with masked_fill_ (in place)
  math       F.scaled_dot_product_attention(is_causal=True) pinned to SDPBackend.MATH
  flash      … pinned to SDPBackend.FLASH_ATTENTION (also on the CPU)
  efficient  … pinned to SDPBackend.EFFICIENT_ATTENTION (CUDA only)
  cudnn      … pinned to SDPBackend.CUDNN_ATTENTION (CUDA only)

    python attention_variants.py --variant naive -o naive.json [--device cpu|cuda]
    python attention_variants.py --all -o traces/          # every variant the device runs

Random inputs, no weights, nothing downloaded. Prints one line per trace written.
"""
import argparse
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile, record_function, schedule

VARIANTS = ["naive", "inplace", "math", "flash", "efficient", "cudnn"]
BACKENDS = {
    "math": SDPBackend.MATH,
    "flash": SDPBackend.FLASH_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
    "cudnn": SDPBackend.CUDNN_ATTENTION,
}
CUDA_ONLY = {"efficient", "cudnn"}


class NaiveCausalAttention(torch.nn.Module):
    def __init__(self, head_dim, in_place):
        super().__init__()
        self.scale = 1.0 / math.sqrt(head_dim)
        self.in_place = in_place

    def forward(self, q, k, v, mask):
        scores = torch.matmul(q, k.transpose(-2, -1))
        scores = scores * self.scale
        if self.in_place:
            scores.masked_fill_(mask, float("-inf"))
        else:
            scores = scores.masked_fill(mask, float("-inf"))
        attn = torch.softmax(scores, dim=-1)
        return torch.matmul(attn, v)


def run(variant, out, device, batch, heads, seq, head_dim, dtype, steps):
    torch.manual_seed(0)
    shape = (batch, heads, seq, head_dim)
    q, k, v = (torch.randn(shape, device=device, dtype=dtype) for _ in range(3))
    if variant in ("naive", "inplace"):
        module = NaiveCausalAttention(head_dim, variant == "inplace")
        mask = torch.triu(torch.ones(seq, seq, device=device, dtype=torch.bool), diagonal=1)
        forward = lambda: module(q, k, v, mask)  # noqa: E731
    else:
        backend = BACKENDS[variant]

        def forward():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    sched = schedule(wait=1, warmup=1, active=steps, repeat=1)
    with torch.no_grad(), profile(activities=activities, schedule=sched, record_shapes=True) as prof:
        for _ in range(2 + steps):
            with record_function("attn_fwd"):
                forward()
            if device == "cuda":
                torch.cuda.synchronize()
            prof.step()
    prof.export_chrome_trace(out)
    print(f"{variant}: {out}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", choices=VARIANTS)
    p.add_argument("--all", action="store_true", help="every variant the device runs, into the folder -o")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--device", choices=["cpu", "cuda"], default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--dtype", choices=["bfloat16", "float16", "float32"], default="bfloat16")
    p.add_argument("--steps", type=int, default=4, help="forwards recorded (after one skipped, one warm-up)")
    p.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: PyTorch's choice)")
    a = p.parse_args()
    if a.variant is None and not a.all:
        p.error("give --variant NAME or --all")
    if a.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: PyTorch sees no CUDA device")
    if a.threads:
        torch.set_num_threads(a.threads)
    dtype = getattr(torch, a.dtype)
    variants = [v for v in VARIANTS if a.device == "cuda" or v not in CUDA_ONLY] if a.all else [a.variant]
    if a.variant in CUDA_ONLY and a.device != "cuda":
        p.error(f"--variant {a.variant}: that backend runs on CUDA only")
    if a.all:
        os.makedirs(a.output, exist_ok=True)
    failed = 0
    for variant in variants:
        out = os.path.join(a.output, f"{variant}.json") if a.all else a.output
        try:
            run(variant, out, a.device, a.batch, a.heads, a.seq, a.head_dim, dtype, a.steps)
        except RuntimeError as e:  # a backend PyTorch cannot run here (cuDNN without cuDNN, …)
            print(f"{variant}: not available here: {str(e).splitlines()[0]}", file=sys.stderr)
            failed += 1
    return 1 if failed == len(variants) or not a.all and failed else 0


if __name__ == "__main__":
    sys.exit(main())
