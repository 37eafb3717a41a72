"""Issue 25, item 5: a wrong argument type raises what torch's argument parser raises (TypeError naming the function,
the argument and its position), also from the functions wick writes in Python (wick/_args.py), where the first use
of the argument would raise AttributeError. Every Tensor position of each function, three kinds of wrong value."""
from .harness import *  # noqa: F401,F403

A23 = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
BAD = {'range': lambda: range(3), 'str': lambda: 'x', 'float': lambda: 2.5}

# (function under torch.nn.functional, number of leading Tensor arguments)
FUNCS = [('bilinear', 3), ('conv_tbc', 3), ('cosine_embedding_loss', 3), ('cosine_similarity', 2), ('kl_div', 2),
         ('poisson_nll_loss', 2), ('pairwise_distance', 2), ('relu_', 1), ('rms_norm', 1),
         ('scaled_dot_product_attention', 3), ('triplet_margin_loss', 3)]


def _call(T, fname, n, pos, bad):
    args = [T.tensor(A23) for _ in range(max(n, 2))][:n]
    args[pos] = BAD[bad]()
    if fname == 'rms_norm':
        args.append([3])
    return getattr(T.nn.functional, fname)(*args)


for _fname, _n in FUNCS:
    cases('argtype_' + _fname, lambda T, pos, bad, f=_fname, n=_n: _call(T, f, n, pos, bad),
          kind='error', pos=list(range(_n)), bad=list(BAD))

error_case('argtype_bilinear_bias', lambda T: T.nn.functional.bilinear(T.tensor(A23), T.tensor(A23),
                                                                       T.ones(2, 3, 3), range(2)))
error_case('argtype_bilinear_kw', lambda T: T.nn.functional.bilinear(T.tensor(A23), input2='x', weight=T.ones(2, 3, 3)))
case('argtype_bilinear_bias_none', lambda T: T.nn.functional.bilinear(T.tensor(A23), T.tensor(A23),
                                                                      T.ones(2, 3, 3), None))
error_case('argtype_cosine_similarity_kw', lambda T: T.nn.functional.cosine_similarity(T.tensor(A23), x2=range(2)))
error_case('argtype_pairwise_distance_kw', lambda T: T.nn.functional.pairwise_distance(x1='x', x2=T.tensor(A23)))
error_case('argtype_kl_div_kw', lambda T: T.nn.functional.kl_div(T.tensor(A23), target=2.5))
