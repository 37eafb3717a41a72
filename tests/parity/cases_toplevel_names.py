"""Names torch re-exports at the top level from a submodule: torch.vmap (torch.func.vmap itself)."""
from .harness import *  # noqa: F401,F403

X = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]
case("vmap_is_func_vmap", lambda T: T.vmap is T.func.vmap)
case("vmap_toplevel", lambda T: T.vmap(lambda x: x * x + 1)(T.tensor(X)))
case("vmap_toplevel_in_dims", lambda T: T.vmap(lambda x, y: x @ y, in_dims=(0, None))(T.tensor(X), T.tensor([1.0, 2.0, 3.0])))
case("vmap_toplevel_nested", lambda T: T.vmap(T.vmap(lambda x: x.sum()), in_dims=1)(T.tensor(X)))
error_case("vmap_toplevel_bad_in_dims", lambda T: T.vmap(lambda x: x, in_dims=2)(T.tensor(X)))
