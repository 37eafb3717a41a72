# The Tensor attributes the native TensorBase writes by hand: storage_offset, _version, data_ptr, .data (its own
# version counter) and assigning it, torch.as_tensor.
import torch

a = torch.arange(12.0).view(3, 4)
v = a[1:, 2:]
print(v.storage_offset(), a.t().storage_offset(), a[2].storage_offset())
print(v.data_ptr() - a.data_ptr() == v.storage_offset() * a.element_size())
print(a.view(12).data_ptr() == a.data_ptr(), a.clone().data_ptr() == a.data_ptr())
print(torch.empty(0).data_ptr())

x = torch.zeros(3)
print(x._version)
x.add_(1)
x[0] = 5
print(x._version)
y = x.view(3)
y.mul_(2)
print(x._version, y._version)

w = torch.ones(2, requires_grad=True)
d = w.data
print(d.requires_grad, d._version, w._version)
d.add_(1)                       # no error in backward later: .data has its own counter
print(w, d._version, w._version)
loss = (w * w).sum()
w.data.mul_(10)
loss.backward()
print(w.grad)
w.data = torch.tensor([7.0, 8.0, 9.0])
print(w, w.shape)
try:
    w.data = 3
except TypeError as e:
    print("TypeError:", e)

t = torch.tensor([1, 2])
print(torch.as_tensor(t) is t, torch.as_tensor(t, dtype=torch.float32))
print(torch.as_tensor([[1.5, 2], [3, 4]]), torch.as_tensor((1, 2), dtype=torch.int16))

# torch.inference_mode on the core's flag
xi = torch.ones(2, requires_grad=True)
with torch.inference_mode():
    y = xi * 2
    print(torch.is_inference_mode_enabled(), y.requires_grad, y.is_inference())
print(torch.is_inference_mode_enabled(), xi.is_inference())
try:
    y._version
except RuntimeError as e:
    print("RuntimeError:", e)
@torch.inference_mode()
def f(a):
    return a + 1
print(f(xi), f(xi).is_inference())

# torch.return_types: built from one sequence, as torch's
m = torch.tensor([[1.0, 5.0], [3.0, 2.0]]).max(0)
print(m, type(m).__name__, m.values, m.indices)
print(torch.return_types.max([torch.tensor(1.0), torch.tensor(0)]))
try:
    torch.return_types.max([1])
except TypeError as e:
    print("TypeError:", e)
print(torch.histogram(torch.tensor([1.0, 2.0, 1.0]), bins=2))

# memory_format=: preserve_format keeps strides, contiguous_format gives row-major results
tt = torch.arange(6.0).view(2, 3).t()
print(tt.clone().stride(), tt.clone(memory_format=torch.contiguous_format).stride(),
      tt.clone(memory_format=torch.preserve_format).stride())
print(torch.zeros_like(tt, memory_format=torch.contiguous_format).stride(), torch.ones_like(tt).stride())
print(tt.contiguous(memory_format=torch.contiguous_format).stride(), torch.clone(tt, memory_format=torch.contiguous_format))
print(tt.to(torch.float64, memory_format=torch.contiguous_format).stride())
