# SPDX-License-Identifier: MIT
"""A program with its own torch.profiler (as every script of the post has): it must work as it would
without AttnScope. Trains a few iterations inside the profiler, then exports its trace to argv[1]."""
import sys

import torch
from torch.profiler import ProfilerActivity, profile

torch.set_num_threads(1)
model = torch.nn.MultiheadAttention(32, 4, batch_first=True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(2, 64, 32)
for i in range(2):  # before its profiler: AttnScope's records these
    model(x, x, x)[0].sum().backward()
    optimizer.step()
    optimizer.zero_grad()
with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    for i in range(3):
        model(x, x, x)[0].sum().backward()
        optimizer.step()
        optimizer.zero_grad()
prof.export_chrome_trace(sys.argv[1])
print("exported", sum(e.key == "aten::bmm" for e in prof.events()) > 0)
