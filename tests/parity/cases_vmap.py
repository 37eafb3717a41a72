"""torch.func.vmap as a batching transform (wick/func/_vmap.py, Note [vmap]): every case runs with warns=True, so a
rule that fell back to the per-entry loop (torch's performance warning, which torch does not give for these ops)
fails the case. Pointwise broadcasting against unbatched tensors of other ranks, reductions (dims, negative dims,
keepdim, all dims), views and shape ops, matmul in every rank combination, linear and conv with batched inputs or
weights, cat/stack, indexing, in-place ops, nested vmap, in_dims/out_dims/chunk_size, vmap(grad) per-sample
gradients (MLP and CNN), ensembling through functional_call, the fallback's warning, and vmap's errors."""
from .harness import *  # noqa: F401,F403

B = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [-0.3, 0.8, 1.1], [2.2, -0.6, 0.4]]   # batch of 4 vectors of 3
M = [[[0.5, -1.0], [2.0, 1.5], [0.25, -0.75]], [[-0.3, 0.8], [1.1, 2.2], [-0.6, 0.4]],
     [[1.2, -0.2], [0.7, -1.4], [0.9, 0.1]], [[-1.1, 0.6], [0.35, 1.8], [-0.45, 0.05]]]   # batch of 4 (3, 2)
W = [[1.3, -0.7, 2.1], [0.45, -1.1, 0.6]]   # (2, 3)
V3 = [0.75, -0.5, 1.25]


def V(T):
    return T.func.vmap


def t(T, data):
    return T.tensor(data)


def vcase(name, fn, **kw):
    case(name, fn, warns=True, **kw)


# ------------------------------------------------------------------------------------------ pointwise
vcase("pointwise_unary", lambda T: V(T)(lambda x: x.sin().exp() * 2 - x.tanh())(t(T, B)))
vcase("pointwise_scalar_ops", lambda T: V(T)(lambda x: (1 - x) / 2 + 3 * x ** 2 - 2 / (x + 3))(t(T, B)))
vcase("pointwise_unbatched_same_rank", lambda T: V(T)(lambda x, y: x * y + y, in_dims=(0, None))(t(T, B), t(T, V3)))
vcase("pointwise_unbatched_higher_rank", lambda T: V(T)(lambda x, y: x + y, in_dims=(0, None))(t(T, B), t(T, W)))
vcase("pointwise_unbatched_higher_rank_left", lambda T: V(T)(lambda x, y: y - x, in_dims=(0, None))(t(T, B), t(T, W)))
vcase("pointwise_both_batched_ranks", lambda T: V(T)(lambda x, m: m.mT * x)(t(T, B), t(T, M)))
vcase("pointwise_where_clamp", lambda T: V(T)(lambda x: T.where(x > 0, x, x * 0.1).clamp(-0.05, 1.5))(t(T, B)))
vcase("pointwise_compare", lambda T: V(T)(lambda x, y: (x >= y, x.eq(y), T.maximum(x, y)), in_dims=(0, None))(t(T, B), t(T, V3)))
vcase("pointwise_activations", lambda T: V(T)(lambda x: (T.nn.functional.gelu(x), T.nn.functional.silu(x),
                                                          T.nn.functional.leaky_relu(x, 0.2), x.relu()))(t(T, B)))
vcase("pointwise_int", lambda T: V(T)(lambda x: x * 3 // 2 + x % 3)(T.tensor([[1, 5, -7], [4, -2, 9]])))
vcase("inplace_batched", lambda T: V(T)(lambda x, y: x.clone().mul_(y).add_(1), in_dims=(0, None))(t(T, B), t(T, V3)))
vcase("inplace_iadd", lambda T: V(T)(lambda x: _iadd(x.clone(), x))(t(T, B)))
error_case("inplace_unbatched_self", lambda T: V(T)(lambda x, y: y.add_(x), in_dims=(0, None))(t(T, B), t(T, V3)))


def _iadd(a, b):
    a += b
    a *= 2
    return a


# ------------------------------------------------------------------------------------------ reductions / dims
vcase("reduce_all", lambda T: V(T)(lambda x: (x.sum(), x.mean(), x.amax(), x.max(), x.argmax(), x.std(),
                                              x.prod(), x.norm()))(t(T, M)))
vcase("reduce_dim", lambda T: V(T)(lambda x: (x.sum(0), x.mean(-1), x.amax(1, keepdim=True), x.argmin(0),
                                              x.var(1, correction=0), x.logsumexp(-1)))(t(T, M)))
vcase("reduce_dims_tuple", lambda T: V(T)(lambda x: (x.sum((0, 1)), x.mean((-1,), keepdim=True)))(t(T, M)))
vcase("reduce_max_dim", lambda T: V(T)(lambda x: x.max(0))(t(T, M)))
vcase("reduce_keepdim_all", lambda T: V(T)(lambda x: x.sum(dim=None, keepdim=True))(t(T, M)))
vcase("reduce_bool", lambda T: V(T)(lambda x: ((x > 0).all(), (x > 1).any(-1)))(t(T, M)))
vcase("reduce_scalar_sample", lambda T: V(T)(lambda x: (x.sum(), x.sum(0), x.mean(-1)))(T.tensor(V3)))
vcase("softmax_cumsum", lambda T: V(T)(lambda x: (x.softmax(-1), x.log_softmax(0), x.cumsum(1),
                                                  T.nn.functional.softmax(x, dim=1)))(t(T, M)))
vcase("sort_topk", lambda T: V(T)(lambda x: (x.sort(0), x.topk(2), x.argsort(-1, descending=True)))(t(T, M)))
error_case("reduce_dim_out_of_range", lambda T: V(T)(lambda x: x.sum(2))(t(T, M)))

# ------------------------------------------------------------------------------------------ views / shape
vcase("view_reshape", lambda T: V(T)(lambda x: (x.view(2, 3), x.reshape(-1), x.view(6, 1), x.flatten(),
                                                x.reshape(1, 3, 2)))(t(T, M)))
vcase("view_noncontiguous_in_dim", lambda T: V(T)(lambda x: x.reshape(-1), in_dims=1)(t(T, M)))
vcase("permute_transpose", lambda T: V(T)(lambda x: (x.t(), x.mT, x.transpose(0, 1), x.permute(1, 0), x.T,
                                                     x.movedim(0, -1)))(t(T, M)))
vcase("unsqueeze_squeeze", lambda T: V(T)(lambda x: (x.unsqueeze(0), x.unsqueeze(-1), x.unsqueeze(1).squeeze(1),
                                                     x.view(1, 3, 1, 2).squeeze(), x.view(1, 6).squeeze(0)))(t(T, M)))
vcase("expand", lambda T: V(T)(lambda x: (x.view(3, 1).expand(3, 4), x.expand(2, 3), x.expand_as(T.zeros(5, 3))))(
    t(T, B)))
vcase("select_narrow_unbind", lambda T: V(T)(lambda x: (x.select(1, 0), x.narrow(0, 1, 2), x.unbind(0)))(t(T, M)))
vcase("split_chunk", lambda T: V(T)(lambda x: (x.split(1), x.chunk(2, dim=1)))(t(T, M)))
vcase("flip_diagonal", lambda T: V(T)(lambda x: (x.flip(0), x.diagonal(), x.flip((0, 1))))(t(T, M)))
vcase("cat_stack", lambda T: V(T)(lambda x, y: (T.cat([x, y]), T.stack([x, y], 1), T.stack([y, x], -1)), in_dims=(0, None))(
    t(T, B), t(T, V3)))
vcase("cat_dim1", lambda T: V(T)(lambda m: T.cat([m, m * 2], dim=1))(t(T, M)))
vcase("getitem_basic", lambda T: V(T)(lambda x: (x[0], x[1:, ::-1] if False else x[1:], x[..., 1], x[None, :, 0],
                                                 x[-1, -1]))(t(T, M)))
vcase("setitem_basic", lambda T: V(T)(lambda x, y: _setitem(x.clone(), y))(t(T, M), t(T, B)))


def _setitem(x, y):
    x[:, 0] = y
    x[0, 1] = 7.0
    return x


# ------------------------------------------------------------------------------------------ matmul family
vcase("matmul_vec_mat", lambda T: V(T)(lambda x, w: x @ w.mT, in_dims=(0, None))(t(T, B), t(T, W)))
vcase("matmul_mat_vec", lambda T: V(T)(lambda x, w: w @ x, in_dims=(0, None))(t(T, B), t(T, W)))
vcase("matmul_vec_vec", lambda T: V(T)(lambda x, y: (x @ y, T.dot(x, y), y @ x), in_dims=(0, None))(t(T, B), t(T, V3)))
vcase("matmul_both_batched", lambda T: V(T)(lambda x, m: (x @ m, m.mT @ x, T.mm(m.mT, m), m @ m.mT))(t(T, B), t(T, M)))
vcase("matmul_batched_3d", lambda T: V(T)(lambda m, w: T.matmul(m.unsqueeze(0).expand(2, 3, 2), w), in_dims=(0, None))(
    t(T, M), T.tensor([[1.5, -0.5], [0.25, 2.0]])))
vcase("matmul_unbatched_3d", lambda T: V(T)(lambda m, w: T.matmul(w, m), in_dims=(0, None))(t(T, M), T.tensor(
    [[[1.5, -0.5, 0.2]], [[0.25, 2.0, -1.0]]])))
vcase("mv_bmm", lambda T: V(T)(lambda m, x: (T.mv(m.mT, x), T.bmm(m.unsqueeze(0), m.mT.unsqueeze(0))))(
    t(T, M), t(T, B)))
vcase("linear_batched_input", lambda T: V(T)(lambda x: T.nn.functional.linear(x, t(T, W), t(T, [0.1, -0.2])))(
    t(T, B)))
vcase("linear_batched_weight", lambda T: V(T)(lambda w, b, x: T.nn.functional.linear(x, w, b), in_dims=(0, 0, None))(
    T.tensor([W, [[0.2, 0.1, -0.3], [1.0, 0.5, 0.5]]]), T.tensor([[0.1, -0.2], [0.3, 0.0]]), t(T, B)))
vcase("addmm", lambda T: V(T)(lambda x: T.addmm(t(T, [0.5, -0.5]), x.view(1, 3), t(T, W).mT))(t(T, B)))

# ------------------------------------------------------------------------------------------ nn ops over N
IMG = [[[[((i * 7 + j * 3 + c * 5 + n) % 11) / 5.0 - 1.0 for j in range(5)] for i in range(5)] for c in range(2)]
       for n in range(3)]                                                        # (3, 2, 5, 5)
KER = [[[[((o + i + a * 2 + b) % 5) / 4.0 - 0.5 for b in range(3)] for a in range(3)] for i in range(2)]
       for o in range(4)]                                                        # (4, 2, 3, 3)
vcase("conv2d_unbatched_sample", lambda T: V(T)(lambda x: T.nn.functional.conv2d(x, t(T, KER), padding=1))(t(T, IMG)))
vcase("conv2d_sample_batch", lambda T: V(T)(lambda x: T.nn.functional.conv2d(x.unsqueeze(0), t(T, KER), stride=2))(
    t(T, IMG)))
vcase("pool2d", lambda T: V(T)(lambda x: (T.nn.functional.max_pool2d(x, 2), T.nn.functional.avg_pool2d(x, 2),
                                          T.nn.functional.adaptive_avg_pool2d(x.unsqueeze(0), 1)))(t(T, IMG)))
vcase("losses", lambda T: V(T)(lambda x, y: (T.nn.functional.cross_entropy(x.unsqueeze(0), y.unsqueeze(0)),
                                             T.nn.functional.nll_loss(x.log_softmax(0), y),
                                             T.nn.functional.cross_entropy(x, y, reduction='sum')))(
    t(T, B), T.tensor([2, 0, 1, 2])))

# ------------------------------------------------------------------------------------------ vmap's own arguments
vcase("in_dims_tuple_none", lambda T: V(T)(lambda x, y, k: x * y + k, in_dims=(1, None, None))(t(T, M).transpose(0, 1), t(T, [0.5, -2.0]), 2.0))
vcase("in_dims_nested", lambda T: V(T)(lambda p: p["a"] + p["b"][0], in_dims=({"a": 0, "b": (1,)},))(
    {"a": t(T, B), "b": (t(T, B).t(),)}))
vcase("out_dims", lambda T: V(T)(lambda x: (x.sum(0), x * 2), out_dims=(0, 2))(t(T, M)))
vcase("out_unbatched", lambda T: V(T)(lambda x: (x * 2, t(T, V3)))(t(T, B)))
vcase("chunk_size", lambda T: V(T)(lambda x: x.softmax(0) @ t(T, W).mT, chunk_size=3)(t(T, B)))
vcase("nested", lambda T: V(T)(V(T)(lambda a, b: (a * b).sum() + a.max(), in_dims=(0, None)), in_dims=(0, None))(t(T, M), t(T, [0.5, -2.0])))
vcase("nested_in_dims", lambda T: V(T)(V(T)(lambda a, b: a @ b, in_dims=(0, None)), in_dims=(None, 0))(t(T, W), t(T, B)))
vcase("batch_size_one", lambda T: V(T)(lambda x: x.sum(0) * x)(t(T, M)[:1]))
vcase("batch_size_zero", lambda T: V(T)(lambda x: x.sum(0) * 2)(T.zeros(0, 3, 2)))
vcase("len_and_iter", lambda T: V(T)(lambda x: x * len(x) + sum(list(x)))(t(T, B)))
vcase("fallback_warning", lambda T: V(T)(lambda x: T.nn.functional.pdist(x.view(3, 1)))(t(T, B)))
error_case("item_in_vmap", lambda T: V(T)(lambda x: x.sum().item())(t(T, B)))
error_case("bool_in_vmap", lambda T: V(T)(lambda x: x * 2 if x.sum() > 0 else x)(t(T, B)))
error_case("random_in_vmap", lambda T: V(T)(lambda x: x + T.randn(3))(t(T, B)))
error_case("dropout_in_vmap", lambda T: V(T)(lambda x: T.nn.functional.dropout(x, 0.5))(t(T, B)))
error_case("out_none_batched", lambda T: V(T)(lambda x: x * 2, out_dims=None)(t(T, B)))


# ------------------------------------------------------------------------------------------ per-sample gradients
def _mlp(T):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(3, 5), T.nn.Tanh(), T.nn.Linear(5, 3))
    with T.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_((T.arange(p.numel(), dtype=T.float32).view(p.shape) * 0.37 + i).sin() * 0.8)
    return model


def per_sample_grads(T):
    model = _mlp(T)
    F = T.func
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        out = F.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
        return T.nn.functional.cross_entropy(out, target.unsqueeze(0))
    g = F.vmap(F.grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, t(T, B), T.tensor([2, 0, 1, 2]))
    gv = F.vmap(F.grad_and_value(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, t(T, B),
                                                                              T.tensor([2, 0, 1, 2]))
    return g, gv


vcase("per_sample_grads_mlp", per_sample_grads)


def per_sample_grads_cnn(T):
    T.manual_seed(0)
    conv, fc = T.nn.Conv2d(2, 3, 3), T.nn.Linear(27, 2)
    with T.no_grad():
        for i, p in enumerate(list(conv.parameters()) + list(fc.parameters())):
            p.copy_((T.arange(p.numel(), dtype=T.float32).view(p.shape) * 0.29 + i).cos() * 0.5)

    def loss(w, b, wf, bf, x, y):
        h = T.nn.functional.relu(T.nn.functional.conv2d(x.unsqueeze(0), w, b))
        h = T.nn.functional.max_pool2d(h, 1).flatten(1)
        return T.nn.functional.nll_loss(T.nn.functional.linear(h, wf, bf).log_softmax(-1), y.unsqueeze(0))
    return T.func.vmap(T.func.grad(loss, argnums=(0, 1, 2, 3)), in_dims=(None, None, None, None, 0, 0))(
        conv.weight.detach(), conv.bias.detach(), fc.weight.detach(), fc.bias.detach(), t(T, IMG), T.tensor([1, 0, 1]))


vcase("per_sample_grads_cnn", per_sample_grads_cnn, rtol=1e-4, atol=1e-5)
vcase("grad_of_batched_input", lambda T: T.func.vmap(T.func.grad(lambda x, w: (w @ x).tanh().sum()),
                                                     in_dims=(0, None))(t(T, B), t(T, W)))
vcase("vmap_grad_nested", lambda T: T.func.vmap(T.func.vmap(T.func.grad(lambda x, w: (x * w).sin().sum()),
                                                            in_dims=(0, None)), in_dims=(None, 0))(
    t(T, B), t(T, M).mT))
vcase("grad_of_vmap", lambda T: T.func.grad(lambda w: T.func.vmap(lambda x: (w @ x).exp().sum())(t(T, B)).sum())(
    t(T, W)))
vcase("grad_grad_in_vmap", lambda T: T.func.vmap(T.func.grad(lambda x: T.func.grad(lambda y: (y ** 3).sum())(x).sum()))(
    t(T, B)))


def ensembling(T):
    F = T.func
    T.manual_seed(0)
    models = [T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2)) for _ in range(3)]
    with T.no_grad():
        for k, m in enumerate(models):
            for i, p in enumerate(m.parameters()):
                p.copy_((T.arange(p.numel(), dtype=T.float32).view(p.shape) * 0.41 + i + k).sin())
    params, buffers = F.stack_module_state(models)
    base = models[0]

    def call(p, b, x):
        return F.functional_call(base, (p, b), (x,))
    same = F.vmap(call, in_dims=(0, 0, None))(params, buffers, t(T, B))
    diff = F.vmap(call)(params, buffers, T.tensor([B[:2], B[1:3], B[2:]]))
    return same.detach(), diff.detach(), same.requires_grad


vcase("ensembling", ensembling)


def _lin_loss(T):
    return lambda w, b, x: T.nn.functional.linear(x, w, b).tanh().sum()


vcase("per_sample_grads_linear_rows", lambda T: T.func.vmap(T.func.grad(_lin_loss(T), argnums=(0, 1)),
                                                            in_dims=(None, None, 0))(
    t(T, W), t(T, [0.1, -0.2]), t(T, M).mT))
vcase("per_sample_grads_linear_plain_bias", lambda T: T.func.vmap(T.func.grad(_lin_loss(T)), in_dims=(None, None, 0))(
    t(T, W), t(T, [0.1, -0.2]), t(T, B)))
vcase("grad_of_per_sample_grads", lambda T: T.func.grad(lambda w: (T.func.vmap(
    T.func.grad(_lin_loss(T)), in_dims=(None, None, 0))(w, t(T, [0.1, -0.2]), t(T, B)) ** 2).sum())(t(T, W)))
vcase("nn_loss_defaults", lambda T: V(T)(lambda a, b: (T._C._nn.nll_loss_nd(a.log_softmax(1), b),
                                                      T._C._nn.cross_entropy_loss(a, b)))(
    T.tensor([B[:2], B[2:]]), T.tensor([[2, 0], [1, 1]])))
