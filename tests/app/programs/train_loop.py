# SPDX-License-Identifier: MIT
"""A user's training loop, as `attnscope profile` meets it: no profiler in it. Attention written by
hand (QKᵀ, softmax, PV) in a small module, trained with SGD; one line on stdout per iteration, "done" on
stderr at the end, then exits with --exit. --gate FILE: keeps training until FILE exists (the test
creates it once it has seen steps arrive); --forever: until interrupted; --crash N: raises at N;
--segfault N: dies of SIGSEGV at N; --interrupt N: gets SIGINT at N, as from Ctrl+C in its terminal."""
import argparse
import math
import os
import signal
import sys

import torch


class Attention(torch.nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.out = torch.nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        return self.out((scores.softmax(-1) @ v).transpose(1, 2).reshape(b, n, d))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=6)
    parser.add_argument("--exit", type=int, default=0)
    parser.add_argument("--gate")
    parser.add_argument("--forever", action="store_true")
    parser.add_argument("--crash", type=int, default=-1)
    parser.add_argument("--segfault", type=int, default=-1)
    parser.add_argument("--interrupt", type=int, default=-1)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = Attention(64, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(2, 128, 64)
    i = 0
    while True:
        if args.gate:
            if os.path.exists(args.gate):
                break
        elif not args.forever and i >= args.iters:
            break
        if i == args.crash:
            raise RuntimeError(f"boom at iteration {i}")
        if i == args.segfault:
            signal.signal(signal.SIGSEGV, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGSEGV)
        if i == args.interrupt:
            os.kill(os.getpid(), signal.SIGINT)
        model(x).square().mean().backward()
        optimizer.step()
        optimizer.zero_grad()
        print(f"iter {i}", flush=True)
        i += 1
    print("done", file=sys.stderr)
    return args.exit


if __name__ == "__main__":
    sys.exit(main())
