"""Fit y = 2x - 1 with autograd: the same program runs under real torch (python3 examples/quickstart.py --torch)."""
import sys

if '--torch' in sys.argv:
    import torch
else:
    import wick as torch

xs = torch.tensor([[0.0], [1.0], [2.0], [3.0], [4.0]])
ys = xs * 2 - 1
w = torch.zeros(1, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(200):
    pred = xs.mm(w) + b
    loss = ((pred - ys) * (pred - ys)).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.05 * w.grad
        b -= 0.05 * b.grad
    w.grad = None
    b.grad = None
    if step % 50 == 0:
        print(step, loss)
print('w =', w)
print('b =', b)
