"""torch's removed linear-algebra names: torch.lstsq / solve / eig / symeig and Tensor.lstsq / solve / eig / symeig
exist and raise RuntimeError with torch's text (each form, with its keyword arguments)."""
from .harness import *  # noqa: F401,F403

A = [[2.0, 1.0], [1.0, 3.0]]
error_case("removed_lstsq", lambda T: T.lstsq(T.tensor(A), T.tensor(A)))
error_case("removed_lstsq_out", lambda T: T.lstsq(T.tensor(A), T.tensor(A), out=(T.empty(0), T.empty(0))))
error_case("removed_lstsq_method", lambda T: T.tensor(A).lstsq(T.tensor(A)))
error_case("removed_solve", lambda T: T.solve(T.tensor(A), T.tensor(A)))
error_case("removed_solve_method", lambda T: T.tensor(A).solve(T.tensor(A)))
error_case("removed_eig", lambda T: T.eig(T.tensor(A)))
error_case("removed_eig_vectors", lambda T: T.eig(T.tensor(A), True))
error_case("removed_eig_method", lambda T: T.tensor(A).eig())
error_case("removed_eig_method_vectors", lambda T: T.tensor(A).eig(eigenvectors=True))
error_case("removed_symeig", lambda T: T.symeig(T.tensor(A)))
error_case("removed_symeig_upper", lambda T: T.symeig(T.tensor(A), True, upper=False))
error_case("removed_symeig_method", lambda T: T.tensor(A).symeig(eigenvectors=True))
case("removed_names_exist", lambda T: [callable(getattr(T, n)) for n in ("lstsq", "solve", "eig", "symeig")]
     + [callable(getattr(T.Tensor, n)) for n in ("lstsq", "solve", "eig", "symeig")])
