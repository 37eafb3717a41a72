"""Random search for differences between wick's and torch's samplers at the tensor level.

    python3 tests/rng/fuzz_ops.py [SEED [N]]      # N random (sampler, shape, layout, dtype, seed) draws

Each draw seeds both libraries alike (sometimes leaving the cached normal set), fills a tensor of a random
shape and layout (contiguous, transposed, step-sliced, permuted) and compares every value, the result's
strides and the generator's state bytes afterwards. Prints each difference and the count; exit status 1 if
any. Complements the parity cases with layouts nobody thought to write down."""
import os
import random
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import torch  # noqa: E402
import wick  # noqa: E402

FL = ['float32', 'float64', 'float16', 'bfloat16']
INT = ['int64', 'int32', 'int16', 'int8', 'uint8', 'bool']


def make(T, shape, dt, how):
    d = getattr(T, dt)
    if how == 'contig':
        return T.zeros(shape, dtype=d)
    if how == 't':
        return T.zeros(shape[::-1], dtype=d).t() if len(shape) == 2 else T.zeros(shape, dtype=d)
    if how == 'step':
        return T.zeros([s * 2 for s in shape], dtype=d)[tuple(slice(None, None, 2) for _ in shape)]
    return T.zeros(shape[::-1], dtype=d).permute(*range(len(shape) - 1, -1, -1))


OPS = [
    ('uniform_', lambda T, x: x.uniform_(-1.5, 4.0), FL),
    ('normal_', lambda T, x: x.normal_(0.5, 2.0), FL),
    ('random_', lambda T, x: x.random_(), FL + INT),
    ('random_to', lambda T, x: x.random_(2), FL + INT),
    ('random_from_to', lambda T, x: x.random_(0, 2 ** 29), ['float64', 'int64', 'int32']),
    ('exponential_', lambda T, x: x.exponential_(1.3), FL),
    ('geometric_', lambda T, x: x.geometric_(0.2), FL + INT[:-1]),
    ('log_normal_', lambda T, x: x.log_normal_(0.1, 0.7), FL),
    ('cauchy_', lambda T, x: x.cauchy_(0.2, 1.1), FL),
    ('bernoulli_', lambda T, x: x.bernoulli_(0.37), FL + INT),
    ('bernoulli_tensor', lambda T, x: x.bernoulli_(T.full(x.shape[-1:], 0.4, dtype=T.float64)), FL + INT),
    ('randn_like', lambda T, x: T.randn_like(x), FL),
    ('rand_like', lambda T, x: T.rand_like(x), FL),
    ('randint_like', lambda T, x: T.randint_like(x, 3, 50), FL + INT[:-1]),
    ('dropout_of_sum', lambda T, x: T.dropout(x + 1, 0.3, True), FL),
    ('alpha_dropout', lambda T, x: T.alpha_dropout(x + 1, 0.3, True), FL),
]


def main(seed=0, n=300):
    rng = random.Random(seed)
    bad = 0
    for _ in range(n):
        name, op, dts = rng.choice(OPS)
        shape = [rng.choice([1, 2, 3, 5, 7, 16, 17, 31]) for _ in range(rng.choice([1, 2, 2, 3]))]
        how = rng.choice(['contig', 't', 'step', 'perm'])
        dt = rng.choice(dts)
        s = rng.randrange(2 ** 64)
        pre = rng.choice([0, 1, 3])
        res = {}
        for T in (torch, wick):
            T.manual_seed(s)
            if pre:
                T.randn(pre)
            try:
                r = op(T, make(T, shape, dt, how))
                res[T.__name__] = (r.reshape(-1).tolist(), list(r.stride()), zlib.crc32(bytes(T.get_rng_state().tolist())))
            except Exception as e:  # noqa: BLE001 -- an error must match too
                res[T.__name__] = '%s: %s' % (type(e).__name__, e)
        if res['torch'] != res['wick']:
            bad += 1
            print('DIFF', name, shape, dt, how, 'seed', s, 'pre', pre)
    print('%d draws, %d differences' % (n, bad))
    return bad


if __name__ == '__main__':
    import warnings
    warnings.simplefilter('ignore')
    a = sys.argv[1:]
    sys.exit(1 if main(int(a[0]) if a else 0, int(a[1]) if len(a) > 1 else 300) else 0)
