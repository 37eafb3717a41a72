"""torch.distributions in wick: parameterizable probability distributions and sampling functions, pure Python
over wick's ops. Samplers call the same ops as torch's, in the same order, so that after manual_seed the samples
are torch's, value for value."""
from . import constraints, transforms  # noqa: F401
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .uniform import Uniform

__all__ = ['Bernoulli', 'Categorical', 'Distribution', 'Exponential', 'ExponentialFamily', 'Independent',
           'Laplace', 'LogNormal', 'MultivariateNormal', 'Normal', 'OneHotCategorical',
           'OneHotCategoricalStraightThrough', 'TransformedDistribution', 'Uniform', 'kl_divergence',
           'register_kl']
__all__.extend(transforms.__all__)

# torch's other distributions, not in wick yet: using one raises a clear error naming it.
_NOT_YET = ('Beta', 'Binomial', 'Cauchy', 'Chi2', 'ContinuousBernoulli', 'Dirichlet', 'FisherSnedecor', 'Gamma',
            'GeneralizedPareto', 'Geometric', 'Gumbel', 'HalfCauchy', 'HalfNormal', 'InverseGamma', 'Kumaraswamy',
            'LKJCholesky', 'LogisticNormal', 'LowRankMultivariateNormal', 'MixtureSameFamily', 'Multinomial',
            'NegativeBinomial', 'Pareto', 'Poisson', 'RelaxedBernoulli', 'RelaxedOneHotCategorical', 'StudentT',
            'VonMises', 'Weibull', 'Wishart')


def __getattr__(name):
    if name in _NOT_YET:
        raise NotImplementedError(f'torch.distributions.{name} is not supported yet by wick')
    raise AttributeError(f"module 'torch.distributions' has no attribute '{name}'")
