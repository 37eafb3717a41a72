"""torch.distributions in wick: parameterizable probability distributions and sampling functions, pure Python
over wick's ops. Samplers call the same ops as torch's, in the same order, so that after manual_seed the samples
are torch's, value for value."""
from . import constraints, transforms  # noqa: F401
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .mixture_same_family import MixtureSameFamily
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .uniform import Uniform

__all__ = ['Bernoulli', 'Beta', 'Binomial', 'Categorical', 'Dirichlet', 'Distribution', 'Exponential',
           'ExponentialFamily', 'Gamma', 'Independent', 'Laplace', 'LogNormal', 'MixtureSameFamily',
           'MultivariateNormal', 'Normal', 'OneHotCategorical', 'OneHotCategoricalStraightThrough', 'Poisson',
           'TransformedDistribution', 'Uniform', 'kl_divergence', 'register_kl']
__all__.extend(transforms.__all__)

# torch's other distributions, not in wick yet: using one raises a clear error naming it.
_NOT_YET = ('Cauchy', 'Chi2', 'ContinuousBernoulli', 'FisherSnedecor', 'GeneralizedPareto', 'Geometric', 'Gumbel',
            'HalfCauchy', 'HalfNormal', 'InverseGamma', 'Kumaraswamy',
            'LKJCholesky', 'LogisticNormal', 'LowRankMultivariateNormal', 'Multinomial',
            'NegativeBinomial', 'Pareto', 'RelaxedBernoulli', 'RelaxedOneHotCategorical', 'StudentT',
            'VonMises', 'Weibull', 'Wishart')


def __getattr__(name):
    if name in _NOT_YET:
        raise NotImplementedError(f'torch.distributions.{name} is not supported yet by wick')
    raise AttributeError(f"module 'torch.distributions' has no attribute '{name}'")
