"""Inference tensors (torch.inference_mode): which tensors are inference tensors, asked both ways. Torch answers
x.is_inference(); wick's CPython door also has the private getter x._is_inference, which (issue 17) read False for
every tensor. Each case reads `_is_inference` where the library has it and is_inference() where it does not (torch),
so wick's getter is compared with torch's method, alongside wick's is_inference() and requires_grad."""
from .harness import *  # noqa: F401,F403


def flags(t):
    return getattr(t, "_is_inference", t.is_inference()), t.is_inference(), t.requires_grad


def made_inside(T, make):
    x = T.tensor([1.5, -2.0, 0.25, 4.0])
    with T.inference_mode():
        return make(T, x)


MAKERS = {
    "ones": lambda T, x: T.ones(2, 3),
    "arange": lambda T, x: T.arange(5),
    "tensor": lambda T, x: T.tensor([[1, 2], [3, 4]]),
    "mul_outside_input": lambda T, x: x * 2,
    "clone_outside_input": lambda T, x: x.clone(),
    "view_of_outside_input": lambda T, x: x.view(2, 2),
    "zeros_like": lambda T, x: T.zeros_like(x),
}
cases("inference_made_inside", lambda T, how: flags(made_inside(T, MAKERS[how])), how=list(MAKERS))


def outside(T, how):
    x = T.tensor([1.5, -2.0, 0.25, 4.0], requires_grad=True)
    with T.inference_mode():
        y = T.tensor([[3.0, -1.0], [0.5, 2.0]])
    return flags({
        "plain": lambda: x,
        "result_of_plain": lambda: x * 3,
        "view_of_inference": lambda: y[0],
        "transpose_of_inference": lambda: y.t(),
        "detach_of_inference": lambda: y.detach(),
        "data_of_inference": lambda: y.data,
        "clone_of_inference": lambda: y.clone(),
    }[how]())


cases("inference_outside", outside, how=["plain", "result_of_plain", "view_of_inference", "transpose_of_inference",
                                         "detach_of_inference", "data_of_inference", "clone_of_inference"])


def nested(T, how):
    x = T.tensor([2.0, -0.5, 1.0])
    if how == "inference_mode_false_inside":
        with T.inference_mode():
            with T.inference_mode(False):
                return flags(x * 2)
    if how == "no_grad":
        with T.no_grad():
            return flags(x * 2)
    if how == "inplace_inside_on_plain":
        with T.inference_mode():
            x.add_(1)
        return flags(x) + (x.tolist(),)
    if how == "decorator":
        return flags(T.inference_mode()(lambda: x + 1)())
    raise AssertionError(how)


cases("inference_nested", nested, how=["inference_mode_false_inside", "no_grad", "inplace_inside_on_plain",
                                       "decorator"])


def inplace_outside(T):
    with T.inference_mode():
        y = T.ones(3)
    y.add_(1)


error_case("inference_inplace_outside", inplace_outside, match="Inplace update to inference tensor outside")


def saved_for_backward(T):
    x = T.tensor([1.5, -2.0, 0.25, 4.0], requires_grad=True)
    with T.inference_mode():
        y = T.ones(4) * 3
    return y * x


error_case("inference_saved_for_backward", saved_for_backward, match="Inference tensors cannot be saved for backward")
