#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""AttnScope's CPU attention beside PyTorch's, in one run on the same machine.

For each row (B=1 H=8, N 2048 and 4096, D 64 and 128, fp32 and bf16, causal and not, and a decode step:
one query against a 32k KV cache with 8 query heads on 1 K/V head) it times, best of 3 calls after a
warm-up, with the same number of threads, in rounds alternating between the two (best of 3 rounds):
  AttnScope naive and flash   attnscope_bench_attention_cpu --row (a process per row)
  PyTorch naive               q @ kᵀ · scale (+ causal mask), softmax, @ v
  PyTorch SDPA math / flash   F.scaled_dot_product_attention under sdpa_kernel(MATH / FLASH_ATTENTION)
and prints the times and the ratios the performance targets are stated in: AttnScope flash / PyTorch
flash (≤ 1.0), AttnScope naive / PyTorch naive (≤ 1.2), and AttnScope naive / flash (≥ 2.5 at N=2048
fp32 non-causal).

usage: torch_compare.py BENCH_BINARY [--threads T] [--quick] [--rounds R]
"""
import argparse
import math
import os
import subprocess
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def best_ms(fn, calls=3):
    fn()  # warm-up
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times) * 1e3


def torch_row(n, d, dtype, causal, kv_heads, kv_len, heads=8):
    gen = torch.Generator().manual_seed(1)
    q = (torch.rand(1, heads, n, d, generator=gen) * 2 - 1).to(dtype)
    k = (torch.rand(1, kv_heads, kv_len, d, generator=gen) * 2 - 1).to(dtype)
    v = (torch.rand(1, kv_heads, kv_len, d, generator=gen) * 2 - 1).to(dtype)
    scale = 1 / math.sqrt(d)
    group = heads // kv_heads
    # The causal diagonal of a query block at the end of the keys (AttnScope's convention for decode).
    mask = None
    if causal:
        mask = torch.ones(n, kv_len, dtype=torch.bool).tril(diagonal=kv_len - n)

    def naive():
        kk = k.repeat_interleave(group, dim=1) if group > 1 else k
        vv = v.repeat_interleave(group, dim=1) if group > 1 else v
        s = (q @ kk.transpose(-2, -1)) * scale
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        return torch.softmax(s, dim=-1) @ vv

    def sdpa(backend):
        def run():
            with sdpa_kernel(backend):
                if mask is not None and n == kv_len:
                    return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=group > 1)
                return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=group > 1)
        return run

    out = {"naive": best_ms(naive), "math": best_ms(sdpa(SDPBackend.MATH))}
    try:
        out["flash"] = best_ms(sdpa(SDPBackend.FLASH_ATTENTION))
    except RuntimeError as e:  # the flash backend refuses some inputs (a mask, say)
        out["flash"] = float("nan")
        out["flash_why"] = str(e).splitlines()[0]
    return out


def ours_row(binary, n, d, dtype, causal, kv_heads, kv_len, threads):
    cmd = [binary, "--row", "--seq", str(n), "--dim", str(d), "--dtype", dtype, "--kv-heads", str(kv_heads),
           "--kv-len", str(kv_len), "--threads", str(threads)]
    if causal:
        cmd.append("--causal")
    line = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout.strip().splitlines()[-1]
    return {k[:-3]: float(v) for k, v in (w.split("=") for w in line.split()[1:])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--quick", action="store_true", help="N=2048 D=64 rows and the decode step only")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds per row (best of them kept)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    rows = []
    for n in (2048, 4096):
        for d in (64, 128):
            for dtype in ("fp32", "bf16"):
                for causal in (False, True):
                    if args.quick and (n, d) != (2048, 64):
                        continue
                    rows.append((n, d, dtype, causal, 8, n))
    rows += [(1, 128, "fp32", False, 1, 32768), (1, 128, "bf16", False, 1, 32768)]

    print(f"AttnScope vs PyTorch {torch.__version__} on the CPU, {args.threads} threads each, B=1 H=8; "
          f"best of 3 calls after a warm-up, best of {args.rounds} alternating rounds, ms per call")
    head = (f"{'shape':<34} {'ours naive':>10} {'torch naive':>11} {'ratio':>6}   {'ours flash':>10} "
            f"{'torch math':>10} {'torch flash':>11} {'ratio':>6}   {'naive/flash':>11}")
    print(head)
    worst_flash = worst_naive = 0.0
    speedup_2048 = None
    for n, d, dtype, causal, kv_heads, kv_len in rows:
        torch_dtype = torch.float32 if dtype == "fp32" else torch.bfloat16
        # Rounds alternating between the two, the best of each kept: this machine's speed swings by up
        # to 2x for seconds at a time, and a row measured once can catch one side in a slow phase.
        ours, theirs = {}, {}
        for _ in range(args.rounds):
            for side, measured in ((ours, ours_row(args.binary, n, d, dtype, causal, kv_heads, kv_len,
                                                   args.threads)),
                                   (theirs, torch_row(n, d, torch_dtype, causal, kv_heads, kv_len))):
                for key, value in measured.items():
                    side[key] = value if key not in side or isinstance(value, str) else min(side[key], value)
        shape = f"N={n} D={d} {dtype}{' causal' if causal else ''}"
        if kv_len != n:
            shape = f"decode q={n} kv={kv_len} GQA 8:{kv_heads} D={d} {dtype}"
        naive_ratio = ours["naive"] / theirs["naive"]
        flash_ratio = ours["flash"] / theirs["flash"] if not math.isnan(theirs["flash"]) else float("nan")
        speedup = ours["naive"] / ours["flash"]
        worst_naive = max(worst_naive, naive_ratio)
        if not math.isnan(flash_ratio):
            worst_flash = max(worst_flash, flash_ratio)
        if (n, d, dtype, causal) == (2048, 64, "fp32", False):
            speedup_2048 = speedup
        print(f"{shape:<34} {ours['naive']:10.2f} {theirs['naive']:11.2f} {naive_ratio:6.2f}   "
              f"{ours['flash']:10.2f} {theirs['math']:10.2f} {theirs['flash']:11.2f} {flash_ratio:6.2f}   "
              f"{speedup:11.2f}" + (f"   (torch flash: {theirs['flash_why']})" if "flash_why" in theirs else ""))
        sys.stdout.flush()
    print(f"worst AttnScope flash / PyTorch flash: {worst_flash:.2f} (target ≤ 1.0); worst naive / naive: "
          f"{worst_naive:.2f} (target ≤ 1.2); flash speed-up over naive at N=2048 D=64 fp32: "
          f"{speedup_2048 if speedup_2048 else float('nan'):.2f} (target ≥ 2.5)")


if __name__ == "__main__":
    main()
