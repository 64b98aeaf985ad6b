# SPDX-License-Identifier: MIT
"""Inference without an optimizer, as `attnscope profile` meets it: SDPA calls for --seconds, then
"ok" on stdout. The profiler's steps are slices of time."""
import argparse
import time

import torch
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--seconds", type=float, default=1.5)
args = parser.parse_args()
torch.set_num_threads(1)
q = torch.randn(1, 4, 256, 64)
started = time.monotonic()
with torch.no_grad():
    while time.monotonic() - started < args.seconds:
        F.scaled_dot_product_attention(q, q, q, is_causal=True)
print("ok")
