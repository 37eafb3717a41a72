"""ExponentialFamily (torch.distributions.exp_family): entropy through the Bregman divergence of the log
normalizer (autograd.grad of it with respect to the natural parameters)."""
import wick as torch
from .distribution import Distribution

__all__ = ['ExponentialFamily']


class ExponentialFamily(Distribution):
    """Base of the distributions of the form exp(<t(x), theta> - F(theta) + k(x))."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg = self._log_normalizer(*nparams)
        grads = torch.autograd.grad(lg.sum(), nparams, create_graph=True)
        result += lg
        for p, g in zip(nparams, grads):
            result -= (p * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
