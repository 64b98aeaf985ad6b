# SPDX-License-Identifier: MIT
"""A data-parallel training loop for torchrun on the CPU (gloo): each worker a rank."""
import atexit
import os
import sys

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
torch.set_num_threads(1)
torch.manual_seed(dist.get_rank())
model = torch.nn.parallel.DistributedDataParallel(torch.nn.MultiheadAttention(32, 4, batch_first=True))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(2, 64, 32)
for i in range(6):
    y, _ = model(x, x, x)
    y.sum().backward()
    optimizer.step()
    optimizer.zero_grad()
print(f"rank {dist.get_rank()} done", flush=True)
dist.destroy_process_group()
# torch's own teardown of a gloo job can abort at interpreter exit ("terminate called without an active
# exception", after destroy_process_group has returned): about 1 run in 15 on a loaded 2-core machine, with or
# without AttnScope. The job has done its work: run the exit handlers (the profiler's included) and leave.
sys.stdout.flush()
atexit._run_exitfuncs()
os._exit(0)
