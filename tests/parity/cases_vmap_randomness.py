"""vmap's randomness='different' and 'same' (Note [vmap randomness] in wick/func/_random.py): factories (rand,
randn, randint, normal, randperm) and random ops on batched tensors (rand_like, randn_like, dropout, bernoulli,
in-place normal_ / uniform_), nested levels, in_dims=None, chunk_size, and torch's errors. Each case seeds, draws
under vmap, then draws once more, so the generator's state after the vmap is compared too."""
from .harness import *  # noqa: F401,F403

X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
O = [[1.0, 2.0, -1.0, 0.5], [0.25, 1.0, 3.0, -2.0], [1.5, -0.5, 2.0, 1.0]]


def run(fn, mode, data=X, **kw):
    def go(T):
        T.manual_seed(0)
        r = T.func.vmap(lambda *a: fn(T, *a), randomness=mode, **kw)(T.tensor(data))
        return r, T.rand(2)
    return go


F = {
    "rand": lambda T, x: x + T.rand(3),
    "rand_tuple": lambda T, x: x + T.rand((3,)),
    "randn": lambda T, x: x + T.randn(3),
    "randint": lambda T, x: x + T.randint(0, 10, (3,)),
    "randint_high": lambda T, x: x + T.randint(7, (3,)),
    "normal": lambda T, x: x + T.normal(0.5, 2.0, (3,)),
    "rand_like": lambda T, x: T.rand_like(x) * x,
    "randn_like": lambda T, x: T.randn_like(x) + x,
    "inplace_normal": lambda T, x: x.clone().normal_(),
    "inplace_uniform": lambda T, x: x.clone().uniform_(-1.0, 2.0),
    "two_draws": lambda T, x: x * T.rand(3) + T.randn(()),
}
for mode in ("different", "same"):
    for name, fn in F.items():
        case(f"{mode}_{name}", run(fn, mode))
    case(f"{mode}_dropout", run(lambda T, x: T.nn.functional.dropout(x, 0.4), mode, O))
    case(f"{mode}_dropout_eval", run(lambda T, x: T.nn.functional.dropout(x, 0.4, training=False), mode, O))
    case(f"{mode}_randperm", run(lambda T, x: x + T.randperm(3), mode))
    case(f"{mode}_chunk_size", run(lambda T, x: x + T.rand(4), mode, O, chunk_size=2))
    case(f"{mode}_nested", lambda T, mode=mode: (T.manual_seed(0), T.func.vmap(T.func.vmap(
        lambda x: x + T.rand(()), randomness=mode), randomness=mode)(T.tensor(X)), T.rand(2))[1:])
    case(f"{mode}_in_dims_none", lambda T, mode=mode: (T.manual_seed(0), T.func.vmap(
        lambda x, y: T.rand_like(y) + x, in_dims=(0, None), randomness=mode)(T.tensor(X), T.zeros(3)), T.rand(2))[1:])

case("different_bernoulli", run(lambda T, x: T.bernoulli(x * 0 + 0.3), "different", O))
case("outer_different_inner_same", lambda T: (T.manual_seed(0), T.func.vmap(T.func.vmap(
    lambda x: x + T.rand(()), randomness="same"), randomness="different")(T.tensor(X)), T.rand(2))[1:])
case("outer_same_inner_different", lambda T: (T.manual_seed(0), T.func.vmap(T.func.vmap(
    lambda x: x + T.rand(()), randomness="different"), randomness="same")(T.tensor(X)), T.rand(2))[1:])
error_case("different_inplace_unbatched", run(lambda T, x: x + T.zeros(3).normal_(), "different"))
case("same_inplace_unbatched", run(lambda T, x: x + T.zeros(3).normal_(), "same"))
error_case("same_bernoulli_batched", run(lambda T, x: T.bernoulli(x * 0 + 0.3), "same", O))
