"""Every op with a dtype= argument, swept over every output dtype and three input dtypes (issue 24: cumsum(dtype=
torch.bool) was accepted where torch raises NotImplementedError). Each point is a differential check: the result
(value, dtype, shape) or the exception torch raises (type and message), whichever torch gives."""
from .harness import *  # noqa: F401,F403

OUT_DTYPES = ['bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'bfloat16', 'float32', 'float64']

INPUTS = {
    'f32': lambda T: T.tensor([[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]]),
    'i64': lambda T: T.tensor([[1, 2, 0], [3, -1, 2]]),
    'bool': lambda T: T.tensor([[True, False, True], [True, True, False]]),
}

OPS = {
    'cumsum': lambda T, x, d: T.cumsum(x, 0, dtype=d),
    'cumprod': lambda T, x, d: T.cumprod(x, 0, dtype=d),
    'Tensor.cumsum': lambda T, x, d: x.cumsum(1, dtype=d),
    'Tensor.cumprod': lambda T, x, d: x.cumprod(-1, dtype=d),
    'Tensor.cumsum_': lambda T, x, d: x.cumsum_(0, dtype=d),
    'Tensor.cumprod_': lambda T, x, d: x.cumprod_(0, dtype=d),
    'cumsum_out': lambda T, x, d: T.cumsum(x, 0, dtype=d, out=T.empty(0, dtype=d)),
    'sum': lambda T, x, d: T.sum(x, dtype=d),
    'sum_dim': lambda T, x, d: T.sum(x, 1, dtype=d),
    'Tensor.sum': lambda T, x, d: x.sum(0, keepdim=True, dtype=d),
    'nansum': lambda T, x, d: T.nansum(x, dtype=d),
    'nansum_dim': lambda T, x, d: T.nansum(x, 0, dtype=d),
    'mean': lambda T, x, d: T.mean(x, dtype=d),
    'mean_dim': lambda T, x, d: T.mean(x, 1, dtype=d),
    'nanmean': lambda T, x, d: T.nanmean(x, dtype=d),
    'nanmean_dim': lambda T, x, d: T.nanmean(x, 0, dtype=d),
    'prod': lambda T, x, d: T.prod(x, dtype=d),
    'prod_dim': lambda T, x, d: T.prod(x, 1, dtype=d),
    'softmax': lambda T, x, d: T.softmax(x, 1, dtype=d),
    'log_softmax': lambda T, x, d: T.log_softmax(x, 1, dtype=d),
    'Tensor.softmax': lambda T, x, d: x.softmax(0, dtype=d),
    'F.softmax': lambda T, x, d: T.nn.functional.softmax(x, 1, dtype=d),
    'F.log_softmax': lambda T, x, d: T.nn.functional.log_softmax(x, 1, dtype=d),
    'F.softmin': lambda T, x, d: T.nn.functional.softmin(x, 1, dtype=d),
    'linalg.vector_norm': lambda T, x, d: T.linalg.vector_norm(x, dtype=d),
    'linalg.matrix_norm': lambda T, x, d: T.linalg.matrix_norm(x, dtype=d),
    'linalg.matrix_norm_1': lambda T, x, d: T.linalg.matrix_norm(x, 1, dtype=d),
    'linalg.norm': lambda T, x, d: T.linalg.norm(x, dtype=d),
    'linalg.norm_fro': lambda T, x, d: T.linalg.norm(x, 'fro', dtype=d),
    'norm': lambda T, x, d: T.norm(x, 2, dtype=d),
}


def _outcome(T, op, inp, dtype):
    try:
        return OPS[op](T, INPUTS[inp](T), getattr(T, dtype))
    except Exception as e:  # the exception torch raises is the expected answer
        return ('raised', type(e).__name__, str(e))


cases("dtype_arg", lambda T, op, inp, dtype: _outcome(T, op, inp, dtype),
      op=list(OPS), inp=list(INPUTS), dtype=OUT_DTYPES, rtol=1e-2, atol=1e-2)
