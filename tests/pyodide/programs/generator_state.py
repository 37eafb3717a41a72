# Generator state: get_state / set_state (torch's 5056 bytes), clone_state, torch.get_rng_state, copy.deepcopy.
import copy

import torch

g = torch.Generator().manual_seed(42)
s = g.get_state()
print(s.dtype, s.shape, s[:8], s[-8:])
a = torch.rand(3, generator=g)
g.set_state(s)
print(torch.equal(a, torch.rand(3, generator=g)))
c = g.clone_state()
print(torch.rand(2, generator=g), torch.rand(2, generator=c))
d = copy.deepcopy(g)
print(torch.equal(torch.randn(4, generator=g), torch.randn(4, generator=d)), d.initial_seed())

torch.manual_seed(7)
st = torch.get_rng_state()
x = torch.randn(3)
torch.set_rng_state(st)
print(x, torch.equal(x, torch.randn(3)))
try:
    g.set_state(torch.zeros(4))
except TypeError as e:
    print("TypeError:", e)
try:
    g.set_state(torch.zeros(4, dtype=torch.uint8))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    g.get_offset()
except RuntimeError as e:
    print("RuntimeError:", e)
