"""torch.autograd.functional (jacobian, hessian, vjp, jvp, hvp, vhp: tensor and tuple inputs and outputs,
create_graph, strict, vectorize, their errors) and torch.autograd.gradcheck / gradgradcheck (passing functions,
a wrong backward with torch's message, raise_exception=False, the input checks and warnings).
strategy="forward-mode" runs forward-mode AD (more in cases_forward_ad.py)."""
from .harness import *  # noqa: F401,F403

XA = [[0.5, -1.0], [2.0, 0.3], [1.1, -0.4]]
YA = [[1.5, 0.2], [-0.7, 0.9], [0.4, 0.6]]
V2 = [0.45, -1.1]
V32 = [[1.3, -0.7], [2.1, 0.45], [-0.3, 0.8]]


def AF(T):
    return T.autograd.functional


def d(T, data, rg=False):
    return T.tensor(data, dtype=T.float64, requires_grad=rg)


def f_two(x, y):
    return (x * y).sin().sum(0), x.exp() * y[0]


def f_one(x):
    return (x ** 3 - x.sin()).sum(1)


def f_scalar(x):
    return (x ** 3).sum() * x[0, 0] + x.cos().prod()


def f_scalar2(x, y):
    return (x * y.exp()).sum() + (x ** 2 * y).sum()


cases("jacobian_tuple", lambda T, vectorize, create_graph: AF(T).jacobian(
    f_two, (d(T, XA), d(T, YA)), create_graph=create_graph, vectorize=vectorize),
    vectorize=BOOLS, create_graph=BOOLS)
cases("jacobian_tensor", lambda T, vectorize: AF(T).jacobian(f_one, d(T, XA), vectorize=vectorize), vectorize=BOOLS)
case("jacobian_strict_ok", lambda T: AF(T).jacobian(f_one, d(T, XA), strict=True))
error_case("jacobian_strict_independent", lambda T: AF(T).jacobian(lambda x, y: x * 2, (d(T, XA), d(T, YA)),
                                                                   strict=True))
case("jacobian_independent_zeros", lambda T: AF(T).jacobian(lambda x, y: x * 2, (d(T, XA), d(T, YA))))
error_case("jacobian_strict_vectorize", lambda T: AF(T).jacobian(f_one, d(T, XA), strict=True, vectorize=True))
error_case("jacobian_bad_strategy", lambda T: AF(T).jacobian(f_one, d(T, XA), strategy="sideways"))
error_case("jacobian_not_tensor", lambda T: AF(T).jacobian(f_one, [1.0, 2.0]))
error_case("jacobian_output_not_tensor", lambda T: AF(T).jacobian(lambda x: 3.0, d(T, XA)))
case("jacobian_forward_mode", lambda T: AF(T).jacobian(f_one, d(T, XA), vectorize=True, strategy="forward-mode"))
error_case("jacobian_forward_mode_create_graph", lambda T: AF(T).jacobian(f_one, d(T, XA), create_graph=True,
                                                                          strategy="forward-mode"))


def jac_grad(T):
    """create_graph=True: the Jacobian is differentiable again."""
    x = d(T, XA, True)
    J = AF(T).jacobian(f_one, x, create_graph=True)
    (J * J).sum().backward()
    return J.detach(), x.grad


case("jacobian_create_graph_backward", jac_grad)

cases("hessian_tensor", lambda T, vectorize, create_graph: AF(T).hessian(
    f_scalar, d(T, XA), create_graph=create_graph, vectorize=vectorize), vectorize=BOOLS, create_graph=BOOLS)
cases("hessian_tuple", lambda T, vectorize: AF(T).hessian(f_scalar2, (d(T, XA), d(T, YA)), vectorize=vectorize),
      vectorize=BOOLS)
error_case("hessian_not_scalar", lambda T: AF(T).hessian(f_one, d(T, XA)))
error_case("hessian_strict_linear", lambda T: AF(T).hessian(lambda x: x.sum() * 2, d(T, XA), strict=True))
case("hessian_linear_zeros", lambda T: AF(T).hessian(lambda x: x.sum() * 2, d(T, XA)))

cases("vjp_tuple", lambda T, create_graph: AF(T).vjp(f_two, (d(T, XA), d(T, YA)), (d(T, V2), d(T, V32)),
                                                     create_graph=create_graph), create_graph=BOOLS)
case("vjp_scalar_v_none", lambda T: AF(T).vjp(f_scalar, d(T, XA)))
error_case("vjp_v_none_not_scalar", lambda T: AF(T).vjp(f_one, d(T, XA)))
error_case("vjp_v_bad_size", lambda T: AF(T).vjp(f_one, d(T, XA), d(T, V2)))
error_case("vjp_v_count", lambda T: AF(T).vjp(f_two, (d(T, XA), d(T, YA)), d(T, V2)))
error_case("vjp_strict", lambda T: AF(T).vjp(lambda x, y: x.sum(1), (d(T, XA), d(T, YA)), d(T, [1.0, 2.0, 3.0]),
                                              strict=True))

case("jvp_tuple", lambda T: AF(T).jvp(f_two, (d(T, XA), d(T, YA)), (d(T, YA), d(T, XA))))


def jvp_graph(T):
    """create_graph=True (wick's double backward of sum names its node SumBackward1 where torch's is
    SqueezeBackward1: the values and requires_grad are compared)."""
    out, jv = AF(T).jvp(f_two, (d(T, XA), d(T, YA)), (d(T, YA), d(T, XA)), create_graph=True)
    return [o.detach() for o in out], [j.detach() for j in jv], [j.requires_grad for j in jv]


case("jvp_tuple_create_graph", jvp_graph)
case("jvp_tensor", lambda T: AF(T).jvp(f_one, d(T, XA), d(T, V32)))
error_case("jvp_v_none", lambda T: AF(T).jvp(f_one, d(T, XA)))
error_case("jvp_strict", lambda T: AF(T).jvp(lambda x, y: x.sum(1) + 1, (d(T, XA), d(T, YA)), (d(T, XA), d(T, YA)),
                                              strict=True))

cases("hvp", lambda T, create_graph: AF(T).hvp(f_scalar, d(T, XA), d(T, V32), create_graph=create_graph),
      create_graph=BOOLS)
cases("vhp", lambda T, create_graph: AF(T).vhp(f_scalar, d(T, XA), d(T, V32), create_graph=create_graph),
      create_graph=BOOLS)
case("hvp_tuple", lambda T: AF(T).hvp(f_scalar2, (d(T, XA), d(T, YA)), (d(T, V32), d(T, YA))))
case("vhp_tuple", lambda T: AF(T).vhp(f_scalar2, (d(T, XA), d(T, YA)), (d(T, V32), d(T, YA))))
error_case("hvp_not_scalar", lambda T: AF(T).hvp(f_one, d(T, XA), d(T, V32)))
error_case("vhp_strict_linear", lambda T: AF(T).vhp(lambda x: x.sum(), d(T, XA), d(T, V32), strict=True))


def batched(T):
    x = d(T, XA, True)
    y = (x ** 2).sum(1)
    return T.autograd.grad(y, x, T.eye(3, dtype=T.float64), is_grads_batched=True)


case("grad_is_grads_batched", batched)
error_case("grad_is_grads_batched_bad_shape", lambda T: T.autograd.grad(
    (d(T, XA, True) ** 2).sum(1), d(T, XA, True), T.eye(2, dtype=T.float64), is_grads_batched=True))


# ------------------------------------------------------------------------------------ gradcheck
def make_bad(T):
    class Square(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return g * a          # wrong: should be 2 * g * a
    return Square


def make_not_mul(T):
    class Ignore(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 3

        @staticmethod
        def backward(ctx, g):
            return T.ones_like(g) * 3   # ignores grad_output
    return Ignore


case("gradcheck_pass", lambda T: T.autograd.gradcheck(lambda a, b: (a * b).sin() + a.exp(), (d(T, XA, True),
                                                                                            d(T, YA, True))))
case("gradcheck_partial_inputs", lambda T: T.autograd.gradcheck(lambda a, b: (a * b).tanh(), (d(T, XA, True),
                                                                                              d(T, YA))))
case("gradcheck_tensor_input", lambda T: T.autograd.gradcheck(lambda a: a.pow(3).sum(0), d(T, XA, True)))
case("gradcheck_multi_output", lambda T: T.autograd.gradcheck(f_two, (d(T, XA, True), d(T, YA, True))))
case("gradcheck_nondiff_output", lambda T: T.autograd.gradcheck(lambda a: (a * 2, a.argmax()), (d(T, XA, True),)))
error_case("gradcheck_wrong_backward", lambda T: T.autograd.gradcheck(make_bad(T).apply, (d(T, XA, True),)))
case("gradcheck_wrong_backward_no_raise",
     lambda T: T.autograd.gradcheck(make_bad(T).apply, (d(T, XA, True),), raise_exception=False))
error_case("gradcheck_not_mul_by_grad_output",
           lambda T: T.autograd.gradcheck(make_not_mul(T).apply, (d(T, XA, True),)))
case("gradcheck_fast_mode_pass", lambda T: T.autograd.gradcheck(lambda a: a.sin() * a, d(T, XA, True),
                                                                fast_mode=True))
case("gradcheck_float32_warns", lambda T: T.autograd.gradcheck(
    lambda a: a * 2, T.tensor(XA, requires_grad=True), eps=1e-3, atol=1e-3), warns=True)
error_case("gradcheck_no_grad_inputs", lambda T: T.autograd.gradcheck(lambda a: a * 2, (d(T, XA),)))
error_case("gradcheck_stride0", lambda T: T.autograd.gradcheck(
    lambda a: a * 2, (T.tensor([1.0, 2.0], dtype=T.float64).expand(3, 2).requires_grad_(),)))
case("gradcheck_eps_atol", lambda T: T.autograd.gradcheck(lambda a: a.exp(), d(T, XA, True), eps=1e-4, atol=1e-4,
                                                          rtol=1e-2))
error_case("gradcheck_loose_eps_fails", lambda T: T.autograd.gradcheck(lambda a: (a * 4).exp(), d(T, XA, True),
                                                                       eps=1e-1, atol=1e-6, rtol=1e-6))

case("gradgradcheck_pass", lambda T: T.autograd.gradgradcheck(lambda a, b: (a * b).sin() * a,
                                                              (d(T, XA, True), d(T, YA, True))))
case("gradgradcheck_given_grad_outputs", lambda T: T.autograd.gradgradcheck(
    lambda a: (a ** 3).sum(1), d(T, XA, True), d(T, [0.3, -1.2, 0.7], True)))
case("gradgradcheck_random_grad_outputs", lambda T: T.autograd.gradgradcheck(lambda a: a.tanh() * a, d(T, XA, True)))
case("gradgradcheck_custom_function", lambda T: T.autograd.gradgradcheck(make_bad(T).apply, (d(T, XA, True),)))


def dual(T):
    with T.autograd.forward_ad.dual_level():
        x = T.autograd.forward_ad.make_dual(d(T, X3), d(T, [1.0, 0.5, -2.0]))
        return T.autograd.forward_ad.unpack_dual(x.sin()).tangent


X3 = [0.5, -1.25, 2.0]
case("forward_ad_dual", dual)

# The deprecated private helpers torch.autograd.gradcheck still exports (a FutureWarning each).
def GC(T):
    import sys
    return sys.modules[T.autograd.gradcheck.__module__]


case("get_analytical_jacobian", lambda T: GC(T).get_analytical_jacobian(
    (d(T, XA, True),), (d(T, XA, True) ** 3).sum(0)), warns=True)
case("get_analytical_jacobian_two_inputs", lambda T: (lambda a, b: GC(T).get_analytical_jacobian(
    (a, b), (a * b.exp()).sum(1)))(d(T, XA, True), d(T, YA, True)), warns=True)
case("get_numerical_jacobian", lambda T: GC(T).get_numerical_jacobian(
    lambda inp: (inp[0] ** 3).sum(0), (d(T, XA, True),), eps=1e-6), warns=True)
error_case("get_analytical_jacobian_grad_out", lambda T: GC(T).get_analytical_jacobian(
    (d(T, XA, True),), d(T, XA, True).sum(), grad_out=2.0), warns=True)
