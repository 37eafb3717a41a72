"""torch.nn.modules._functions: the identity Function that module backward hooks hang on."""
from ...autograd.function import Function


class BackwardHookFunction(Function):
    """Returns its tensor arguments unchanged; the ones that need no grad are marked non-differentiable. Its
    backward node (BackwardHookFunctionBackward) is where a module's full backward hooks and pre-hooks run."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads
