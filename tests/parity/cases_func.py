"""torch.func: grad / grad_and_value (argnums, has_aux, pytrees, nesting), vjp, jvp, linearize, jacrev, jacfwd,
hessian, vmap (in_dims / out_dims / chunk_size / nesting / randomness 'error' and 'same', over modules through
functional_call), functional_call (dict, tuple of dicts, tied weights, strict), stack_module_state, and the
compositions torch's tutorials use: vmap(grad(f)) per-sample gradients, ensembling, jacrev(jacfwd(f)).
vmap's batching rules have their own cases (cases_vmap.py), its randomness modes too (cases_vmap_randomness.py)."""
from .harness import *  # noqa: F401,F403

X = [0.5, -1.25, 2.0]
B = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [-0.3, 0.8, 1.1], [2.2, -0.6, 0.4]]   # batch of 4
W = [[1.3, -0.7, 2.1], [0.45, -1.1, 0.6]]


def FN(T):
    return T.func


def t(T, data):
    return T.tensor(data)


def f3(x):
    return (x.sin() * x ** 2).sum()


case("grad_basic", lambda T: FN(T).grad(f3)(t(T, X)))
case("grad_value", lambda T: FN(T).grad_and_value(f3)(t(T, X)))
case("grad_argnums_tuple", lambda T: FN(T).grad(lambda x, y: (x * y.exp()).sum(), argnums=(0, 1))(t(T, X),
                                                                                                  t(T, X) * 0.5))
case("grad_argnums_1", lambda T: FN(T).grad(lambda x, y: (x * y.exp()).sum(), argnums=1)(t(T, X), t(T, X) * 0.5))
case("grad_argnums_neg", lambda T: FN(T).grad(lambda x, y: (x * y.exp()).sum(), argnums=-1)(t(T, X), t(T, X)))
case("grad_has_aux", lambda T: FN(T).grad(lambda x: (f3(x), {"m": x.mean(), "s": [x * 2]}), has_aux=True)(t(T, X)))
case("grad_and_value_has_aux", lambda T: FN(T).grad_and_value(lambda x: (f3(x), x.max()), has_aux=True)(t(T, X)))
case("grad_dict", lambda T: FN(T).grad(lambda p: (p["a"] * p["b"].tanh()).sum())({"a": t(T, X), "b": t(T, X) + 1}))
case("grad_tuple_arg", lambda T: FN(T).grad(lambda p: (p[0] * p[1]).sum() ** 2)((t(T, X), t(T, X) * -2)))
case("grad_unused", lambda T: FN(T).grad(lambda x, y: (y * 2).sum(), argnums=(0, 1))(t(T, X), t(T, X)))
case("grad_grad", lambda T: FN(T).grad(lambda x: FN(T).grad(f3)(x).sum())(t(T, X)))
case("grad_grad_grad", lambda T: FN(T).grad(lambda x: FN(T).grad(lambda y: FN(T).grad(f3)(y).sum())(x).sum())(
    t(T, X)))
case("grad_of_requires_grad_input", lambda T: FN(T).grad(f3)(T.tensor(X, requires_grad=True)))
error_case("grad_not_scalar", lambda T: FN(T).grad(lambda x: x * 2)(t(T, X)))
error_case("grad_not_tensor", lambda T: FN(T).grad(lambda x: 3.0)(t(T, X)))
error_case("grad_aux_not_tuple", lambda T: FN(T).grad(lambda x: x.sum(), has_aux=True)(t(T, X)))
error_case("grad_argnum_range", lambda T: FN(T).grad(f3, argnums=2)(t(T, X)))
error_case("grad_argnums_repeat", lambda T: FN(T).grad(f3, argnums=(0, 0))(t(T, X)))
error_case("grad_argnums_empty", lambda T: FN(T).grad(f3, argnums=())(t(T, X)))
error_case("grad_argnums_float", lambda T: FN(T).grad(f3, argnums=1.5)(t(T, X)))
error_case("grad_non_tensor_input", lambda T: FN(T).grad(lambda x: x)(3.0))


def vjp_case(T):
    out, fn = FN(T).vjp(lambda x, y: (x.sin() * y, (x * y).sum()), t(T, X), t(T, X) * 2)
    return out, fn((t(T, [1.3, -0.7, 2.1]), t(T, 0.45)))


case("vjp_tuple", vjp_case)
case("vjp_has_aux", lambda T: FN(T).vjp(lambda x: (x.exp(), x.sum()), t(T, X), has_aux=True)[0::2])
error_case("vjp_bad_cotangent", lambda T: FN(T).vjp(lambda x: x * 2, t(T, X))[1](T.ones(2)))
case("vjp_inside_grad", lambda T: FN(T).grad(lambda x: FN(T).vjp(f3, x)[1](T.tensor(1.5))[0].sum())(t(T, X)))

case("jvp_basic", lambda T: FN(T).jvp(lambda x: x.sin() * x[0], (t(T, X),), (t(T, [0.5, -1.0, 0.25]),)))
case("jvp_two", lambda T: FN(T).jvp(lambda x, y: (x * y).exp(), (t(T, X), t(T, X) * 0.5),
                                    (t(T, [0.5, -1.0, 0.25]), t(T, [1.5, 0.2, -0.3]))))
case("jvp_has_aux", lambda T: FN(T).jvp(lambda x: (x.cos(), x.sum()), (t(T, X),), (t(T, X),), has_aux=True))
case("jvp_linear", lambda T: FN(T).jvp(lambda x: x * 3, (t(T, X),), (t(T, [1.0, 2.0, 3.0]),)))
error_case("jvp_primals_not_tuple", lambda T: FN(T).jvp(lambda x: x, t(T, X), t(T, X)))
error_case("jvp_tangent_size", lambda T: FN(T).jvp(lambda x: x, (t(T, X),), (T.ones(2),)))
case("linearize", lambda T: FN(T).linearize(lambda x: x.exp() * x, t(T, X))[1](t(T, [1.0, 0.5, -2.0])))

case("jacrev", lambda T: FN(T).jacrev(lambda x: x.sin() * x.sum())(t(T, X)))
case("jacrev_argnums", lambda T: FN(T).jacrev(lambda x, y: x[:, None] * y, argnums=(0, 1))(t(T, X), t(T, [1.5, -2.0])))
case("jacrev_tuple_out", lambda T: FN(T).jacrev(lambda x: (x.exp(), x.sum()))(t(T, X)))
case("jacrev_has_aux", lambda T: FN(T).jacrev(lambda x: (x ** 2, x.mean()), has_aux=True)(t(T, X)))
case("jacrev_matrix", lambda T: FN(T).jacrev(lambda m: m @ m.T)(t(T, W)))
case("jacfwd", lambda T: FN(T).jacfwd(lambda x: x.sin() * x.sum())(t(T, X)))
case("jacfwd_argnums", lambda T: FN(T).jacfwd(lambda x, y: x[:, None] * y, argnums=1)(t(T, X), t(T, [1.5, -2.0])))
case("hessian", lambda T: FN(T).hessian(f3)(t(T, X)))
case("hessian_argnums", lambda T: FN(T).hessian(lambda x, y: (x * y.sin()).sum(), argnums=(0, 1))(t(T, X), t(T, X)))
case("jacrev_jacfwd", lambda T: FN(T).jacrev(FN(T).jacfwd(f3))(t(T, X)))
case("jacrev_jacrev", lambda T: FN(T).jacrev(FN(T).jacrev(lambda x: x.sin() * x[1]))(t(T, X)))

# ------------------------------------------------------------------------------------ vmap
case("vmap_basic", lambda T: FN(T).vmap(lambda x: (x * x).sum())(t(T, B)))
case("vmap_in_dims", lambda T: FN(T).vmap(lambda x, y: x @ y, in_dims=(0, None))(t(T, B), t(T, X)))
case("vmap_in_dim1", lambda T: FN(T).vmap(lambda x: x.cumsum(0), in_dims=1)(t(T, B)))
case("vmap_in_dim_neg", lambda T: FN(T).vmap(lambda x: x.softmax(0), in_dims=-1)(t(T, B)))
case("vmap_out_dims", lambda T: FN(T).vmap(lambda x: x.exp(), out_dims=1)(t(T, B)))
case("vmap_out_dims_tuple", lambda T: FN(T).vmap(lambda x: (x, x.sum()), out_dims=(1, 0))(t(T, B)))
case("vmap_out_none", lambda T: FN(T).vmap(lambda x: (x * 2, 7), out_dims=(0, None))(t(T, B)))
case("vmap_nested", lambda T: FN(T).vmap(FN(T).vmap(lambda a, b: a * b + 1))(t(T, B), t(T, B)))
case("vmap_nested_outer", lambda T: FN(T).vmap(FN(T).vmap(lambda a, b: a * b), in_dims=(None, 0))(t(T, X), t(T, B)))
case("vmap_chunk_size", lambda T: FN(T).vmap(lambda x: x.norm(), chunk_size=3)(t(T, B)))
case("vmap_dict_input", lambda T: FN(T).vmap(lambda d: d["a"] * d["b"])({"a": t(T, B), "b": t(T, B)}))
case("vmap_nested_in_dims", lambda T: FN(T).vmap(lambda p, x: p[0] * x + p[1], in_dims=((0, None), 0))(
    (t(T, B), t(T, 0.5)), t(T, B)))
case("vmap_kwargs_unmapped", lambda T: FN(T).vmap(lambda x, scale=1.0: x * scale)(t(T, B), scale=2.5))
case("vmap_same_randomness", lambda T: (FN(T).vmap(lambda x: T.rand(3) + x, randomness="same")(t(T, B)),
                                        T.rand(2)))
case("vmap_randomness_different", lambda T: FN(T).vmap(lambda x: T.rand(3) + x, randomness="different")(t(T, B)))
error_case("vmap_random_error_mode", lambda T: FN(T).vmap(lambda x: T.rand(3) + x)(t(T, B)))
case("vmap_random_error_mode_state", lambda T: (_try(lambda: FN(T).vmap(lambda x: T.rand(3) + x)(t(T, B))),
                                                T.rand(2)))
error_case("vmap_sizes_differ", lambda T: FN(T).vmap(lambda x, y: x + y)(T.ones(2), T.ones(3)))
error_case("vmap_in_dim_range", lambda T: FN(T).vmap(lambda x: x, in_dims=2)(T.ones(2)))
error_case("vmap_in_dims_structure", lambda T: FN(T).vmap(lambda x: x, in_dims=(0, 0))(T.ones(2)),
           match=r"in_dims is not compatible with the structure of `inputs`")
error_case("vmap_in_dims_none", lambda T: FN(T).vmap(lambda x: x, in_dims=None)(T.ones(2)))
error_case("vmap_non_tensor", lambda T: FN(T).vmap(lambda x: x)(3.0))
error_case("vmap_scalar_input", lambda T: FN(T).vmap(lambda x: x)(T.ones(())))
error_case("vmap_returns_float", lambda T: FN(T).vmap(lambda x: 3.0)(T.ones(2)))
error_case("vmap_bad_randomness", lambda T: FN(T).vmap(lambda x: x, randomness="foo")(T.ones(2)))


def _try(fn):
    try:
        fn()
    except RuntimeError as e:
        return str(e)
    return "no error"


# ------------------------------------------------------------------------------------ modules
def mlp(T):
    return T.nn.Sequential(T.nn.Linear(3, 5), T.nn.Tanh(), T.nn.Linear(5, 2))


def fcall(T):
    m = mlp(T)
    params = {k: v * 0.5 for k, v in m.named_parameters()}
    out = FN(T).functional_call(m, params, (t(T, B),))
    return out, m(t(T, B)), list(m.state_dict().keys())


case("functional_call", fcall)


def fcall_tuple(T):
    m = T.nn.BatchNorm1d(3)
    params = {k: v.detach() + 0.5 for k, v in m.named_parameters()}
    bufs = {"running_mean": t(T, [0.1, -0.2, 0.3]), "running_var": t(T, [1.5, 0.5, 2.0])}
    m.eval()
    return FN(T).functional_call(m, (params, bufs), t(T, B)), m.running_mean


case("functional_call_tuple_of_dicts", fcall_tuple)
case("functional_call_partial", lambda T: FN(T).functional_call(mlp(T), {"0.bias": T.zeros(5)}, t(T, B)))
case("functional_call_kwargs", lambda T: FN(T).functional_call(
    T.nn.Linear(3, 2), {"weight": t(T, W)}, (), {"input": t(T, B)}))
error_case("functional_call_repeated", lambda T: FN(T).functional_call(
    T.nn.Linear(3, 2), ({"weight": t(T, W)}, {"weight": t(T, W)}), t(T, B)))
error_case("functional_call_not_dict", lambda T: FN(T).functional_call(T.nn.Linear(3, 2), 5, t(T, B)))
error_case("functional_call_strict_missing", lambda T: FN(T).functional_call(
    T.nn.Linear(3, 2), {"weight": t(T, W)}, t(T, B), strict=True))
error_case("functional_call_strict_unexpected", lambda T: FN(T).functional_call(
    T.nn.Linear(3, 2), {"weight": t(T, W), "bias": T.zeros(2), "extra": T.zeros(1)}, t(T, B), strict=True))


def tied(T, tie):
    class Tied(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = T.nn.Linear(3, 3, bias=False)
            self.b = T.nn.Linear(3, 3, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))
    m = Tied()
    return FN(T).functional_call(m, {"a.weight": T.eye(3) * 2}, t(T, B), tie_weights=tie)


cases("functional_call_tied", tied, tie=BOOLS)


def fcall_grad(T):
    m = mlp(T)
    params = {k: v.detach() for k, v in m.named_parameters()}
    return FN(T).grad(lambda p: FN(T).functional_call(m, p, t(T, B)).pow(2).sum())(params)


case("functional_call_grad", fcall_grad)


def stack(T):
    models = [T.nn.Linear(3, 2) for _ in range(3)]
    params, buffers = FN(T).stack_module_state(models)
    return params, buffers, [p.is_leaf for p in params.values()]


case("stack_module_state", stack)
error_case("stack_module_state_empty", lambda T: FN(T).stack_module_state([]))
error_case("stack_module_state_mixed_class", lambda T: FN(T).stack_module_state([T.nn.Linear(2, 2), T.nn.ReLU()]))
error_case("stack_module_state_mixed_mode", lambda T: FN(T).stack_module_state([T.nn.Linear(2, 2),
                                                                                T.nn.Linear(2, 2).eval()]))


def stack_bn(T):
    models = [T.nn.BatchNorm1d(3) for _ in range(2)]
    return FN(T).stack_module_state(models)


case("stack_module_state_buffers", stack_bn)


# ------------------------------------------------------------------------------------ tutorials
def per_sample_grads(T):
    """pytorch/tutorials per_sample_grads: vmap(grad(loss)) over a batch against a loop of autograd.grad."""
    m = mlp(T)
    params = {k: v.detach() for k, v in m.named_parameters()}
    buffers = {k: v.detach() for k, v in m.named_buffers()}
    data, targets = t(T, B), T.tensor([0, 1, 1, 0])

    def loss(params, buffers, sample, target):
        out = FN(T).functional_call(m, (params, buffers), (sample.unsqueeze(0),))
        return T.nn.functional.cross_entropy(out, target.unsqueeze(0))
    ft = FN(T).vmap(FN(T).grad(loss), in_dims=(None, None, 0, 0))(params, buffers, data, targets)
    manual = []
    for i in range(4):
        ls = T.nn.functional.cross_entropy(m(data[i:i + 1]), targets[i:i + 1])
        manual.append(T.autograd.grad(ls, list(m.parameters())))
    return ft, [T.stack([g[j] for g in manual]) for j in range(4)]


case("tutorial_per_sample_grads", per_sample_grads)


def ensembling(T):
    models = [mlp(T) for _ in range(3)]
    params, buffers = FN(T).stack_module_state(models)
    base = mlp(T)

    def call(params, buffers, x):
        return FN(T).functional_call(base, (params, buffers), (x,))
    same = FN(T).vmap(call, in_dims=(0, 0, None))(params, buffers, t(T, B))
    diff = FN(T).vmap(call)(params, buffers, T.tensor([B[:2], B[1:3], B[2:]]))
    # detached: a wick vmap output's grad_fn is the node that unwraps the batch, not torch's batched op's
    return (same.detach(), same.requires_grad, [mm(t(T, B)).detach() for mm in models], diff.detach(),
            diff.requires_grad)


case("tutorial_ensembling", ensembling)


def jac_hess_tutorial(T):
    """pytorch/tutorials jacobians_hessians: the Jacobian of a linear-tanh layer w.r.t. its input, by jacrev,
    jacfwd and vmap(vjp) rows, and hessians by hessian and jacfwd(jacrev)."""
    w, b, x = t(T, [[0.5, -1.0, 0.2], [1.5, 0.25, -0.75], [-0.3, 0.8, 1.1]]), t(T, [0.1, -0.2, 0.3]), t(T, X)

    def predict(weight, bias, x):
        return T.nn.functional.linear(x, weight, bias).tanh()
    j1 = FN(T).jacrev(predict, argnums=2)(w, b, x)
    j2 = FN(T).jacfwd(predict, argnums=2)(w, b, x)
    _, vjp_fn = FN(T).vjp(lambda xx: predict(w, b, xx), x)
    j3 = FN(T).vmap(vjp_fn)(T.eye(3))
    h1 = FN(T).hessian(lambda xx: predict(w, b, xx).sum())(x)
    h2 = FN(T).jacfwd(FN(T).jacrev(lambda xx: predict(w, b, xx).sum()))(x)
    jw = FN(T).jacrev(predict, argnums=(0, 1))(w, b, x)
    return j1, j2, j3, h1, h2, jw


case("tutorial_jacobians_hessians", jac_hess_tutorial)


def batched_jacobian(T):
    def f(x):
        return x.sin() * x.sum()
    return FN(T).vmap(FN(T).jacrev(f))(t(T, B))


case("vmap_jacrev", batched_jacobian)
case("stateless_functional_call_deprecated", lambda T: T.nn.utils.stateless.functional_call(
    T.nn.Linear(3, 2), {"weight": t(T, W)}, t(T, B)), warns=True)
