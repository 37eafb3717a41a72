"""pytorch/tutorials intermediate_source/forward_ad_usage.py with offline data (seeded randn, as the tutorial's).
Run as `python3 forward_ad_usage.py torch|wick` (tests/test_tutorials.py)."""
import importlib
import sys

torch = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else 'torch')
fwAD = torch.autograd.forward_ad
nn = torch.nn
torch.set_printoptions(precision=3)
torch.manual_seed(0)

primal = torch.randn(10, 10)
tangent = torch.randn(10, 10)


def fn(x, y):
    return x ** 2 + y ** 2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    assert fwAD.unpack_dual(dual_input).tangent is tangent
    dual_input_alt = fwAD.make_dual(primal, tangent.T)
    assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent
    plain_tensor = torch.randn(10, 10)
    dual_output = fn(dual_input, plain_tensor)
    jvp = fwAD.unpack_dual(dual_output).tangent
    print(jvp[0])
assert fwAD.unpack_dual(dual_output).tangent is None

model = nn.Linear(5, 5)
input = torch.randn(16, 5)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}
with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))
    out = model(input)
    jvp = fwAD.unpack_dual(out).tangent
    print(jvp[:2])

functional_call = torch.func.functional_call
model = nn.Linear(5, 5)
dual_params = {}
with fwAD.dual_level():
    for name, p in params.items():
        dual_params[name] = fwAD.make_dual(p, tangents[name])
    out = functional_call(model, dual_params, input)
    jvp = fwAD.unpack_dual(out).tangent
    print(jvp[:2])

model = nn.Linear(5, 5)
input = torch.randn(16, 5)
with fwAD.dual_level():
    dual_buffers = {}
    out = functional_call(model, {**{k: fwAD.make_dual(p, torch.rand_like(p)) for k, p in model.named_parameters()},
                                  **dual_buffers}, input)
    print(fwAD.unpack_dual(out).tangent[0])


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO


fn = Fn.apply
primal = torch.randn(10, 10, dtype=torch.double, requires_grad=True)
tangent = torch.randn(10, 10)
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn(dual_input)
    jvp = fwAD.unpack_dual(dual_output).tangent
    print(jvp[0])
    print(dual_output.grad_fn.name())

jvp_ = torch.func.jvp
primal0 = torch.randn(10, 10)
tangent0 = torch.randn(10, 10)
primal1 = torch.randn(10, 10)
tangent1 = torch.randn(10, 10)


def fn(x, y):
    return x ** 2 + y ** 2


primal_out, tangent_out = jvp_(fn, (primal0, primal1), (tangent0, tangent1))
print(tangent_out[0])

model = nn.Linear(5, 5)
input = torch.randn(16, 5)
tangents = tuple([torch.rand_like(p) for p in model.parameters()])


def func(params, input):
    return functional_call(model, dict(zip(['weight', 'bias'], params)), input)


_, jvp_out = jvp_(lambda *params: func(params, input), tuple(model.parameters()), tangents)
print(jvp_out[:2])
