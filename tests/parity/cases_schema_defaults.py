"""The losses of torch.* and torch._C._nn called with their optional arguments left out, then with each prefix of them
given (issue 24: torch.kl_div(a, b) reduced to a scalar where torch 2.13's Python binding does not reduce: its
`int reduction=Mean` default reads as 0). A wrong default shows as a wrong value, shape or error on some prefix.
tests/test_schema_defaults.py holds the op table's defaults to torch's schemas for every op."""
from .harness import *  # noqa: F401,F403

A = [[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]]
B = [[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]]          # probabilities (targets of kl_div / bce)
P = [[0.25, 0.7, 0.55], [0.9, 0.15, 0.4]]       # in (0, 1): bce's input
S = [1.0, -1.0]                                  # +-1 targets per row
SGN = [[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]]      # +-1 targets per element
CLS = [2, 0]                                     # class indices
W = [0.5, 1.5, 2.0]                              # class weights

t = lambda T, v: T.tensor(v)
ln = lambda T, v: T.tensor(v, dtype=T.long)

# name: (function, required arguments, optional arguments in schema order: values that differ from the defaults)
LOSSES = {
    'kl_div': (lambda T: T.kl_div, lambda T: [t(T, A), t(T, B)], [2]),
    'kl_div_log_target': (lambda T: (lambda a, b, *r: T.kl_div(a, b, *r, log_target=True)),
                          lambda T: [t(T, A), t(T, B).log()], [2]),
    'binary_cross_entropy_with_logits': (lambda T: T.binary_cross_entropy_with_logits, lambda T: [t(T, A), t(T, B)],
                                         [lambda T: t(T, W), lambda T: t(T, [2.0, 0.5, 1.0]), 2]),
    'cosine_embedding_loss': (lambda T: T.cosine_embedding_loss, lambda T: [t(T, A), t(T, B), t(T, S)], [0.3, 2]),
    'hinge_embedding_loss': (lambda T: T.hinge_embedding_loss, lambda T: [t(T, A), t(T, SGN)], [0.5, 2]),
    'margin_ranking_loss': (lambda T: T.margin_ranking_loss, lambda T: [t(T, A), t(T, B), t(T, SGN)], [0.2, 2]),
    'triplet_margin_loss': (lambda T: T.triplet_margin_loss, lambda T: [t(T, A), t(T, B), t(T, P)],
                            [0.5, 1.0, 1e-3, True, 2]),
    'poisson_nll_loss': (lambda T: T.poisson_nll_loss, lambda T: [t(T, A), t(T, B), True, False, 1e-8, 0], []),
    '_nn.mse_loss': (lambda T: T._C._nn.mse_loss, lambda T: [t(T, A), t(T, B)], [2]),
    '_nn.l1_loss': (lambda T: T._C._nn.l1_loss, lambda T: [t(T, A), t(T, B)], [2]),
    '_nn.smooth_l1_loss': (lambda T: T._C._nn.smooth_l1_loss, lambda T: [t(T, A), t(T, B)], [2, 0.5]),
    '_nn.huber_loss': (lambda T: T._C._nn.huber_loss, lambda T: [t(T, A), t(T, B)], [2, 0.5]),
    '_nn.soft_margin_loss': (lambda T: T._C._nn.soft_margin_loss, lambda T: [t(T, A), t(T, SGN)], [2]),
    '_nn.binary_cross_entropy': (lambda T: T._C._nn.binary_cross_entropy, lambda T: [t(T, P), t(T, B)],
                                 [lambda T: t(T, W), 2]),
    '_nn.nll_loss': (lambda T: T._C._nn.nll_loss, lambda T: [t(T, A), ln(T, CLS)], [lambda T: t(T, W), 2, 0]),
    '_nn.nll_loss_nd': (lambda T: T._C._nn.nll_loss_nd, lambda T: [t(T, A), ln(T, CLS)], [lambda T: t(T, W), 2, 0]),
    '_nn.nll_loss2d': (lambda T: T._C._nn.nll_loss2d, lambda T: [t(T, [A, B]).reshape(1, 2, 2, 3),
                                                                 ln(T, [[[1, 0, 1], [0, 0, 1]]])],
                       [lambda T: t(T, [0.5, 2.0]), 2, 0]),
    '_nn.cross_entropy_loss': (lambda T: T._C._nn.cross_entropy_loss, lambda T: [t(T, A), ln(T, CLS)],
                               [lambda T: t(T, W), 2, 0, 0.1]),
    '_nn.multi_margin_loss': (lambda T: T._C._nn.multi_margin_loss, lambda T: [t(T, A), ln(T, CLS)],
                              [2, 0.5, lambda T: t(T, W), 2]),
    '_nn.multilabel_margin_loss': (lambda T: T._C._nn.multilabel_margin_loss,
                                   lambda T: [t(T, A), ln(T, [[2, -1, 0], [1, 0, -1]])], [2]),
}


def _call(T, name, given):
    fn, req, opt = LOSSES[name]
    args = req(T) + [v(T) if callable(v) else v for v in opt[:given]]
    return fn(T)(*args)


POINTS = [(n, k) for n, (_, _, opt) in LOSSES.items() for k in range(len(opt) + 1)]
for _name, _given in POINTS:
    case(f"loss_defaults[{_name},given={_given}]", lambda T, n=_name, k=_given: _call(T, n, k))

# the same losses' gradients with every optional argument left out (the default's derivative and grad_fn)
for _name in ('kl_div', 'binary_cross_entropy_with_logits', 'cosine_embedding_loss', 'hinge_embedding_loss',
              'margin_ranking_loss', '_nn.mse_loss', '_nn.nll_loss', '_nn.cross_entropy_loss'):
    grad_case(f"loss_defaults_grad[{_name}]",
              lambda T, x, n=_name: LOSSES[n][0](T)(x, *LOSSES[n][1](T)[1:]), A)
