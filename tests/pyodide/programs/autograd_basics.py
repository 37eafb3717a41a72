# Learn the Basics, "Automatic differentiation with torch.autograd" (no numpy).
import torch

torch.manual_seed(0)
x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(w, b, z, loss, sep="\n")
print(f"Gradient function for z = {z.grad_fn.name()}")
print(f"Gradient function for loss = {loss.grad_fn.name()}")

loss.backward()
print(w.grad)
print(b.grad)

z = torch.matmul(x, w)+b
print(z.requires_grad)

with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)

z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp+1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")

a = torch.tensor([2., 3.], requires_grad=True)
c = torch.tensor([6., 4.], requires_grad=True)
q = 3*a**3 - c**2
print(q)
q.backward(torch.tensor([1.5, -0.5]))
print(a.grad, c.grad, 9*a**2 * 1.5 == a.grad)
s = (a * c).sum()
print(s, type(s.grad_fn).__name__, s.requires_grad, a.is_leaf, s.is_leaf)
