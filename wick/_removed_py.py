"""torch's removed linear-algebra names (torch/_linalg_utils.py): torch.lstsq / solve / eig / symeig and the Tensor
methods of the same names exist and raise RuntimeError with torch's text pointing to torch.linalg."""
import sys

from ._tensor import Tensor

_wick = sys.modules[__package__]

_LSTSQ_MSG = (
    'This function was deprecated since version 1.9 and is now removed. `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n'
    '`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition in the returned tuple (although it returns other information about the problem).\n'
    '\n'
    'To get the QR decomposition consider using `torch.linalg.qr`.\n'
    '\n'
    "The returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns of the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field 'residuals' of the returned named tuple.\n"
    '\n'
    'The unpacking of the solution, as in\n'
    'X, _ = torch.lstsq(B, A).solution[:A.size(1)]\n'
    'should be replaced with:\n'
    'X = torch.linalg.lstsq(A, B).solution'
)

_SOLVE_MSG = (
    'This function was deprecated since version 1.9 and is now removed. `torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments reversed and does not return the LU factorization.\n'
    '\n'
    'To get the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\n'
    'X = torch.solve(B, A).solution should be replaced with:\n'
    'X = torch.linalg.solve(A, B)'
)

_EIG_MSG = (
    'This function was deprecated since version 1.9 and is now removed. `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors mimicking complex tensors.\n'
    '\n'
    'L, _ = torch.eig(A) should be replaced with:\n'
    'L_complex = torch.linalg.eigvals(A)\n'
    '\n'
    'and\n'
    '\n'
    'L, V = torch.eig(A, eigenvectors=True) should be replaced with:\n'
    'L_complex, V_complex = torch.linalg.eig(A)'
)

_SYMEIG_MSG = (
    'This function was deprecated since version 1.9 and is now removed. The default behavior has changed from using the upper triangular portion of the matrix by default to using the lower triangular portion.\n'
    '\n'
    'L, _ = torch.symeig(A, upper=upper) should be replaced with:\n'
    "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n"
    '\n'
    'and\n'
    '\n'
    'L, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n'
    "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"
)


def lstsq(input, A, *, out=None):
    raise RuntimeError(_LSTSQ_MSG)


def solve(input, A, *, out=None):
    raise RuntimeError(_SOLVE_MSG)


def eig(self, eigenvectors=False, *, e=None, v=None):
    raise RuntimeError(_EIG_MSG)


def _symeig(input, eigenvectors=False, upper=True, *, out=None):
    raise RuntimeError(_SYMEIG_MSG)


def _lstsq_method(self, other):
    return lstsq(self, other)


def _solve_method(self, other):
    return solve(self, other)


def _eig_method(self, eigenvectors=False):
    return eig(self, eigenvectors=eigenvectors)


def _symeig_method(self, eigenvectors=False):
    return _symeig(self, eigenvectors=eigenvectors)


for _f, _n in ((_lstsq_method, 'lstsq'), (_solve_method, 'solve'), (_eig_method, 'eig'), (_symeig_method, 'symeig')):
    _f.__name__ = _f.__qualname__ = _n
    setattr(Tensor, _n, _f)
_wick.lstsq, _wick.solve, _wick.eig, _wick.symeig = lstsq, solve, eig, _symeig
