# Tensors: make them, look at them, compute with them. Press Run (or Ctrl-Enter).
import torch

x = torch.tensor([[1, 2], [3, 4]])
print(x, x.dtype, x.shape)

torch.manual_seed(0)
r = torch.rand(2, 3)
print(f"Random Tensor: \n {r} \n")

a = torch.arange(12.0).reshape(3, 4)
print(a[1], a[:, ::2], a[a > 5])
print(a @ a.T)
print(a.mean(dim=0), a.sum(1, keepdim=True))
print(torch.linspace(0, 1, 5) ** 2, torch.eye(3, dtype=torch.int64))
a[:, 1] = 0
print(a.add_(1))
