"""Fractional max pooling (Graham, 2014) as torch's CPU kernels compute it
(aten/src/ATen/native/FractionalMaxPool2d.cpp / FractionalMaxPool3d.cpp), written over wick's ops.

Per (batch, plane) a random sample u in [0, 1) per pooled dimension places the windows: with
alpha = (in - k) / (out - 1), window i starts at int((i + u) * alpha) - int(u * alpha) and the last one at in - k.
torch computes that in the input's dtype (float16 rounds at each step), so wick does the arithmetic on tensors of
that dtype. The window's maximum wins with `val > max || isnan(val)` scanning in order: the first maximum, or the
last NaN. Values are gathered from the input by the flat index, so autograd scatters the gradient back exactly as
torch's backward does (gradInput[index] += gradOutput); the node is GatherBackward0 where torch's is
FractionalMaxPool2DBackward0."""
import sys

_wick = sys.modules[__package__.split('.')[0]]

_NAMES = {2: ('fractional_max_pool2d', 'fractional_max_pool2d()', ('height', 'width'), '<=',
              'kernel_size must either be a single Int or tuple of Ints',
              'output_size must either be a single Int or tuple of Ints'),
          3: ('fractional_max_pool3d', 'fractional_max_pool3d_out()', ('time', 'height', 'width'), '<',
              'kernel_size must either be a single Int or tuple of three Ints',
              'output_size must either be a single Int or tuple of three Ints')}


def _intervals(sample, in_size, out_size, k, dtype):
    """(P,) samples of one dimension -> (P, out_size) window starts, int64."""
    P = sample.shape[0]
    starts = _wick.empty((P, out_size), dtype=_wick.int64)
    if out_size > 1:
        alpha = _wick.tensor(float(in_size - k), dtype=dtype) / _wick.tensor(float(out_size - 1), dtype=dtype)
        i = _wick.arange(out_size - 1, dtype=dtype)
        a = ((i.unsqueeze(0) + sample.unsqueeze(1)) * alpha).to(_wick.int32)
        b = (sample * alpha).to(_wick.int32).unsqueeze(1)
        starts[:, :out_size - 1] = (a - b).to(_wick.int64)
    if out_size > 0:
        starts[:, out_size - 1] = in_size - k
    return starts


def fractional_max_pool(nd, input, kernel_size, output_size, samples):
    name, label, dim_names, cmp, k_msg, o_msg = _NAMES[nd]
    kernel = list(kernel_size) if isinstance(kernel_size, (list, tuple)) else [kernel_size] * nd
    out = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * nd
    if len(kernel) != nd:
        raise RuntimeError(f"{name}: {k_msg}")
    if len(out) != nd:
        raise RuntimeError(f"{name}: {o_msg}")
    ndim = input.dim()
    if ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{label}: Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    for i in range(1, ndim):
        if input.size(i) <= 0:
            raise RuntimeError(f"{label}: Expected input to have non-zero size for non-batch dimensions, but got"
                               f"{list(input.shape)} with dimension {i} being empty.")
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    batched = ndim == nd + 2
    x = input if batched else input.unsqueeze(0)
    N, C = x.shape[0], x.shape[1]
    spatial = list(x.shape[2:])
    for d in range(nd):
        ok = out[d] + kernel[d] - 1 <= spatial[d] if cmp == '<=' else out[d] + kernel[d] - 1 < spatial[d]
        if not ok:
            raise RuntimeError(f"{label}: pool {dim_names[d]} {kernel[d]} too large relative to input "
                               f"{dim_names[d]} {spatial[d]}")
    if samples.dim() != 3 or samples.size(1) != C:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.size(2) != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {samples.size(2)}.")
    for o in out:
        if o < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {o}: {[N, C] + out}")
    P = N * C
    empty_window = 0 in kernel   # torch's scan over an empty window keeps -inf and the window's start
    k_start = kernel   # the window starts use the true sizes (an empty window may start past the end, as torch's)
    if empty_window:
        kernel = [max(k, 1) for k in kernel]
    # torch's sample order: 2-D puts width's sample first; 3-D is time, height, width
    order = [1, 0] if nd == 2 else [0, 1, 2]
    s = samples[:N].reshape(P, nd).detach()
    # flat index of each window element: (P, out..., k...) built one dimension at a time
    strides = [1] * nd
    for d in range(nd - 2, -1, -1):
        strides[d] = strides[d + 1] * spatial[d + 1]
    flat = _wick.zeros([P] + out + kernel, dtype=_wick.int64)
    for d in range(nd):
        starts = _intervals(s[:, order[d]], spatial[d], out[d], k_start[d], input.dtype)   # (P, out[d])
        pos = starts.unsqueeze(2) + _wick.arange(kernel[d]).unsqueeze(0).unsqueeze(1)   # (P, out[d], k[d])
        shape = [P] + [1] * (2 * nd)
        shape[1 + d], shape[1 + nd + d] = out[d], kernel[d]
        flat = flat + pos.reshape(shape) * strides[d]
    K = 1
    for k in kernel:
        K *= k
    M = 1
    for o in out:
        M *= o
    flat = flat.reshape(P, M, K)
    plane = 1
    for n in spatial:
        plane *= n
    xf = x.reshape(P, plane)
    with _wick.no_grad():
        if not empty_window:
            vals = xf.gather(1, flat.reshape(P, M * K)).reshape(P, M, K)
            nan = vals.isnan()
            any_nan = nan.any(2)
            last_nan = K - 1 - nan.flip(2).to(_wick.uint8).argmax(2)
            first_max = vals.masked_fill(nan, float('-inf')).argmax(2)
            pick = _wick.where(any_nan, last_nan, first_max)
            index = flat.gather(2, pick.unsqueeze(2)).squeeze(2)          # (P, M)
        else:
            index = flat[:, :, 0]
    if empty_window:
        values = _wick.full(index.shape, float('-inf'), dtype=x.dtype)
    else:
        values = xf.gather(1, index)
    values = values.reshape([N, C] + out)
    index = index.reshape([N, C] + out)
    if not batched:
        values, index = values.squeeze(0), index.squeeze(0)
    return values, index
