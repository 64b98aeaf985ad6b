# SPDX-License-Identifier: MIT
"""A data-parallel training loop for torchrun on the CPU (gloo): each worker a rank."""
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
