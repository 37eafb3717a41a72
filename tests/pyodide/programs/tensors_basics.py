# Learn the Basics, "Tensors" (no numpy): making tensors, their attributes, operations, printing.
import torch

data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
print(x_data)
print(x_data.dtype, x_data.shape)

x_ones = torch.ones_like(x_data)
print(f"Ones Tensor: \n {x_ones} \n")
x_rand = torch.rand_like(x_data, dtype=torch.float)
torch.manual_seed(0)
x_rand = torch.rand_like(x_data, dtype=torch.float)
print(f"Random Tensor: \n {x_rand} \n")

shape = (2, 3,)
torch.manual_seed(1)
rand_tensor = torch.rand(shape)
ones_tensor = torch.ones(shape)
zeros_tensor = torch.zeros(shape)
print(f"Random Tensor: \n {rand_tensor} \n")
print(f"Ones Tensor: \n {ones_tensor} \n")
print(f"Zeros Tensor: \n {zeros_tensor}")

tensor = torch.rand(3, 4)
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")

tensor = torch.ones(4, 4)
print(f"First row: {tensor[0]}")
print(f"First column: {tensor[:, 0]}")
print(f"Last column: {tensor[..., -1]}")
tensor[:, 1] = 0
print(tensor)

t1 = torch.cat([tensor, tensor, tensor], dim=1)
print(t1)

y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.rand_like(y1)
torch.matmul(tensor, tensor.T, out=y3)
print(y1, y2, y3, sep="\n")

z1 = tensor * tensor
z2 = tensor.mul(tensor)
z3 = torch.rand_like(tensor)
torch.mul(tensor, tensor, out=z3)
print(z1)

agg = tensor.sum()
agg_item = agg.item()
print(agg_item, type(agg_item))

print(f"{tensor} \n")
tensor.add_(5)
print(tensor)

a = torch.arange(12).reshape(3, 4)
print(a)
print(a[1], a[1:, ::2], a[:, -1], a[a > 5])
print(a.view(2, 6), a.t(), a.unsqueeze(0).shape, a.flatten())
print(a.float().mean(), a.sum(dim=0), a.float().mean(1, keepdim=True))
print(a.tolist(), a[0, 0].item(), a.numel(), a.dim(), a.size(1))
b = torch.linspace(0, 1, 5)
print(b, b * 2 + 1, 1 - b, 2 / (b + 1), -b, b ** 2, abs(b - 0.5))
print(torch.zeros(2, 3, dtype=torch.int32), torch.full((2, 2), 7.5), torch.eye(3))
print(torch.stack([b, b]).shape, b.max(), b.argmax(), torch.where(b > 0.3, b, torch.zeros_like(b)))
