"""torch.special's families wick has no kernel for yet raise NotImplementedError naming the function (never a
quietly different answer), and wick.special has exactly torch.special's public functions."""
import pytest
import torch

import wick

TORCH_FUNCS = sorted(n for n in dir(torch.special) if not n.startswith('_') and callable(getattr(torch.special, n))
                     and n != 'Tensor')
MISSING = ['airy_ai', 'bessel_j0', 'bessel_j1', 'bessel_y0', 'bessel_y1', 'chebyshev_polynomial_t',
           'chebyshev_polynomial_u', 'chebyshev_polynomial_v', 'chebyshev_polynomial_w', 'erfcx', 'gammainc',
           'gammaincc', 'hermite_polynomial_h', 'hermite_polynomial_he', 'i0e', 'i1', 'i1e', 'laguerre_polynomial_l',
           'legendre_polynomial_p', 'log_ndtr', 'modified_bessel_i0', 'modified_bessel_i1', 'modified_bessel_k0',
           'modified_bessel_k1', 'ndtri', 'scaled_modified_bessel_k0', 'scaled_modified_bessel_k1',
           'shifted_chebyshev_polynomial_t', 'shifted_chebyshev_polynomial_u', 'shifted_chebyshev_polynomial_v',
           'shifted_chebyshev_polynomial_w', 'spherical_bessel_j0', 'zeta']


def test_same_names_as_torch():
    assert sorted(n for n in wick.special.__all__) == TORCH_FUNCS


@pytest.mark.parametrize('name', MISSING)
def test_missing_raises(name):
    with pytest.raises(NotImplementedError, match=f'torch.special.{name} is not supported yet'):
        getattr(wick.special, name)(wick.ones(2))
    getattr(torch.special, name)  # torch has it: the name is real
