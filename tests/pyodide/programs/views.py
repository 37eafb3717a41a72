# Views and their bases (Tensor._is_view / Tensor._base, from the core's wk_is_view / wk_view_base): which results
# share storage with their input, what their base is, and that a write through a view reaches the base.
import torch

x = torch.arange(12.0).reshape(3, 4)   # reshape of a contiguous tensor is a view of arange's result
base = x._base
print(x._is_view(), base is not None and base.shape, x._base is x._base)
views = {
    'x[1]': x[1], 'x[:, 1:]': x[:, 1:], 'x[..., ::2]': x[..., ::2], 'x.t()': x.t(), 'x.view(-1)': x.view(-1),
    'x.unsqueeze(0)': x.unsqueeze(0), 'x.narrow(1, 1, 2)': x.narrow(1, 1, 2), 'x.expand(2, 3, 4)': x.expand(2, 3, 4),
    'x.detach()': x.detach(), 'x[[0, 2]]': x[[0, 2]], 'x[x > 5]': x[x > 5], 'x.clone()': x.clone(),
    'x.contiguous()': x.contiguous(), 'x.t().contiguous()': x.t().contiguous(), 'x + 0': x + 0,
    'x.unbind(0)[1]': x.unbind(0)[1], 'x.split(2, 1)[1]': x.split(2, 1)[1], 'x.diagonal()': x.diagonal(),
}
for name, v in views.items():
    b = v._base
    print(f"{name:20s} view={v._is_view()!s:5s} base={'None' if b is None else tuple(b.shape)} "
          f"base_is_root={b is not None and b.data_ptr() == base.data_ptr()} offset={v.storage_offset()}")

w = torch.zeros(2, 3, requires_grad=True)
v = w[1]
print(v._is_view(), v._base is w, v.grad_fn.name())
y = w.clone()
s = y[:, 1]
s.mul_(2)
print(s._base is y, y.grad_fn.name(), s.grad_fn.name())
with torch.no_grad():
    n = w[0]
print(n._is_view(), n._base is w, n.requires_grad)
with torch.inference_mode():
    i = torch.ones(4)
    iv = i[1:]
print(iv._is_view(), iv._base)
z = torch.arange(6)
zv = z.view(2, 3)[1]
zv.fill_(7)
print(z, zv._base is z)
