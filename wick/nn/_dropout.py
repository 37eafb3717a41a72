"""torch.nn.functional's dropout family (pure Python in torch too), over the C ops dropout / feature_dropout /
alpha_dropout / feature_alpha_dropout and their in-place forms (src/ops/random_ops.c), which draw torch's mask
stream bit for bit. wick.nn.functional re-exports these."""
import warnings

from .. import _C

__all__ = ['dropout', 'dropout1d', 'dropout2d', 'dropout3d', 'alpha_dropout', 'feature_alpha_dropout']


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    r"""Zeroes each element with probability p (a Bernoulli draw per element) and scales the rest by 1/(1-p)."""
    _check_p(p)
    return _C.dropout_(input, p, training) if inplace else _C.dropout(input, p, training)


def dropout1d(input, p=0.5, training=True, inplace=False):
    r"""Channel-wise dropout of (N, C, L) or (C, L) inputs: one draw per channel."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs).")
    is_batched = inp_dim == 3
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _C.feature_dropout_(input, p, training) if inplace else _C.feature_dropout(input, p, training)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout2d(input, p=0.5, training=True, inplace=False):
    r"""Channel-wise dropout of (N, C, H, W) inputs (a 3-D input counts as (N, C, L), as in torch)."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout2d "
            "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if inp_dim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.", stacklevel=2)
    return _C.feature_dropout_(input, p, training) if inplace else _C.feature_dropout(input, p, training)


def dropout3d(input, p=0.5, training=True, inplace=False):
    r"""Channel-wise dropout of (N, C, D, H, W) or (C, D, H, W) inputs."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout3d "
            "exists to provide channel-wise dropout on inputs with 3 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    is_batched = inp_dim == 5
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _C.feature_dropout_(input, p, training) if inplace else _C.feature_dropout(input, p, training)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    r"""Dropout that keeps the mean and variance of SELU activations (note: training defaults to False)."""
    _check_p(p)
    return _C.alpha_dropout_(input, p, training) if inplace else _C.alpha_dropout(input, p, training)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    r"""Channel-wise alpha dropout."""
    _check_p(p)
    return (_C.feature_alpha_dropout_(input, p, training) if inplace
            else _C.feature_alpha_dropout(input, p, training))
