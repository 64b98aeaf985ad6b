#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The post's question on a real model: one small Hugging Face transformers model (Llama's architecture,
built from a config with random weights: nothing is downloaded) run with one attention implementation,
as a training loop or inference. Nothing here profiles: run it under `attnscope profile`, which switches
PyTorch's profiler on from outside, and compare the implementations:

    attnscope profile -o eager.json -- python examples/hf_attention.py --attn eager
    attnscope profile -o sdpa.json  -- python examples/hf_attention.py --attn sdpa
    attnscope profile -o flex.json  -- python examples/hf_attention.py --attn flex_attention --infer
    attnscope compare eager.json sdpa.json flex.json
    attnscope profile -o job.json -- torchrun --nproc-per-node 2 examples/hf_attention.py   # data-parallel

  eager           transformers' hand-written attention: matmul, softmax, dropout, matmul
  sdpa            torch.nn.functional.scaled_dot_product_attention (one fused call)
  flex_attention  torch's FlexAttention, compiled (on the CPU for inference only: it has no backward
                  there; it needs a C++ compiler, and its first call compiles for a while)

Each training step is a forward and backward pass and an AdamW step (the profiler's steps are the
optimizer's); --infer runs forward passes under torch.no_grad() (no optimizer: the profiler's steps
are slices of time). Under torchrun (WORLD_SIZE set) each worker is a rank of a data-parallel job
(DistributedDataParallel over gloo on the CPU, NCCL on GPUs), training on its own tokens. Prints one line
per step.
"""
import argparse
import atexit
import os
import sys
import time

import torch
import torch.distributed as dist
from transformers import LlamaConfig, LlamaForCausalLM


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attn", default="sdpa", choices=["eager", "sdpa", "flex_attention"])
    parser.add_argument("--infer", action="store_true", help="forward passes only, no optimizer")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seq", type=int, default=256)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads (0: PyTorch's default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.attn == "flex_attention" and args.device == "cpu" and not args.infer:
        print("flex_attention has no backward on the CPU: running inference (--infer)", file=sys.stderr)
        args.infer = True

    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if distributed:
        dist.init_process_group("nccl" if args.device == "cuda" else "gloo")
        if args.device == "cuda":
            args.device = f"cuda:{int(os.environ.get('LOCAL_RANK', '0'))}"
            torch.cuda.set_device(args.device)

    torch.manual_seed(0)  # one model on every rank
    config = LlamaConfig(
        vocab_size=1024,
        hidden_size=args.hidden,
        intermediate_size=2 * args.hidden,
        num_hidden_layers=args.layers,
        num_attention_heads=args.heads,
        num_key_value_heads=args.heads,
        max_position_embeddings=max(512, args.seq),
    )
    model = LlamaForCausalLM._from_config(config, attn_implementation=args.attn).to(args.device)
    if distributed:
        torch.manual_seed(1 + dist.get_rank())  # each rank its own batch
    tokens = torch.randint(0, config.vocab_size, (args.batch, args.seq), device=args.device)
    print(f"{args.attn}: {sum(p.numel() for p in model.parameters()) / 1e6:.1f}M parameters, "
          f"{'inference' if args.infer else 'training'} on {args.device}, batch {args.batch}, seq {args.seq}")

    if args.infer:
        model.eval()
        with torch.no_grad():
            for step in range(args.steps):
                started = time.perf_counter()
                model(tokens)
                print(f"step {step}: {1000 * (time.perf_counter() - started):.1f} ms")
        return 0

    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    trained = torch.nn.parallel.DistributedDataParallel(model) if distributed else model
    trained.train()
    rank = f"rank {dist.get_rank()} " if distributed else ""
    for step in range(args.steps):
        started = time.perf_counter()
        loss = trained(tokens, labels=tokens).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        print(f"{rank}step {step}: loss {loss.item():.3f}, {1000 * (time.perf_counter() - started):.1f} ms")
    if distributed:
        dist.destroy_process_group()
        # A gloo job's teardown at interpreter exit can abort ("terminate called without an active
        # exception") after its work is done: run the exit handlers (the profiler's too) and leave.
        sys.stdout.flush()
        atexit._run_exitfuncs()
        os._exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
