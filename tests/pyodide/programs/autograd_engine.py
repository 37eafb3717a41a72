# torch.autograd.grad, several roots, backward(inputs=), retain_grad and tensor hooks (the engine in the wasm core,
# hooks called back from it through its function table).
import torch

torch.manual_seed(0)
x = torch.randn(4, requires_grad=True)
y = torch.randn(4, requires_grad=True)

# autograd.grad: the gradients come back, no .grad changes; create_graph gives a second derivative
(gx,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
print(gx)
print(x.grad)
(ggx,) = torch.autograd.grad(gx.sum(), x)
print(ggx)
print(torch.autograd.grad((x * y).sum(), [x, y], grad_outputs=torch.tensor(2.0)))
print(torch.autograd.grad((x * 2).sum(), [x, y], allow_unused=True))
try:
    torch.autograd.grad((x * 2).sum(), [x, y])
except RuntimeError as e:
    print("RuntimeError:", e)

# several roots, and backward(inputs=...)
torch.autograd.backward([(x * x).sum(), (x * y).sum()], [torch.tensor(1.0), torch.tensor(0.5)])
print(x.grad, y.grad)
x.grad = None
y.grad = None
(x * y).sum().backward(inputs=[y])
print(x.grad, y.grad)

# retain_grad on a non-leaf
h = x * 3
h.retain_grad()
print(h.retains_grad)
(h * h).sum().backward()
print(h.grad)

# hooks: replace the gradient, see it, remove it; a hook that raises
x.grad = None
seen = []
handle = x.register_hook(lambda g: g * 100)
h2 = y.register_hook(lambda g: seen.append(g.clone()))
(x * y).sum().backward()
print(x.grad)
print(seen)
handle.remove()
h2.remove()
x.grad = None
(x * y).sum().backward()
print(x.grad, len(seen))


def bad(g):
    raise ValueError("no gradients today")


hb = x.register_hook(bad)
try:
    (x * 2).sum().backward()
except ValueError as e:
    print("ValueError:", e)

z = torch.ones(2, requires_grad=True)
hz = z.register_hook(lambda g: g.sum())
try:
    (z * 2).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)

# a hook on an intermediate, and a post-accumulate-grad hook on a leaf
w = torch.tensor([1.0, 2.0], requires_grad=True)
m = w * w
hm = m.register_hook(lambda g: g + 1)
w.register_post_accumulate_grad_hook(lambda p: print("accumulated", p.grad))
m.sum().backward()
print(w.grad)

# the classic: an MLP's gradients by autograd.grad equal backward's
lin = torch.nn.Linear(3, 2)
inp = torch.randn(5, 3)
loss = lin(inp).pow(2).mean()
gw, gb = torch.autograd.grad(loss, list(lin.parameters()), retain_graph=True)
loss.backward()
print(torch.equal(gw, lin.weight.grad), torch.equal(gb, lin.bias.grad))
print(gw, gb)

# a hook whose function's globals hold its tensor is a cycle through JS that Python's gc cannot see in Pyodide:
# remove them (the leak check after the programs counts what stays alive)
for hd in (hb, hz, hm):
    hd.remove()

# the graph: grad_fn.name(), next_functions, AccumulateGrad.variable; one object per node while it lives
xn = torch.ones(2, requires_grad=True)
yn = (xn * 2).exp().sum()
print(type(yn.grad_fn).__name__, yn.grad_fn.name())
nf = yn.grad_fn.next_functions
print(nf[0][1], type(nf[0][0]).__name__, [(type(f).__name__, i) for f, i in nf[0][0].next_functions[0][0].next_functions])
acc = nf[0][0].next_functions[0][0].next_functions[0][0]
print(type(acc).__name__, acc.name(), torch.equal(acc.variable, xn), acc.next_functions)
print(yn.grad_fn is yn.grad_fn, (xn + 1).grad_fn.next_functions[1:])
