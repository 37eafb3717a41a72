"""torch.nn.utils.stateless: run a module with some parameters and buffers swapped for given tensors
(_functional_call is what torch.func.functional_call stands on)."""
import contextlib
import warnings

__all__ = ['functional_call']


def _submodule_and_attr(module, name):
    *path, attr = name.split('.')
    for p in path:
        module = getattr(module, p)
    return module, attr


def _tied_names(module, given):
    """Every name (from named_parameters / named_buffers with duplicates) of a tensor that a given name also names."""
    by_id = {}
    for n, t in list(module.named_parameters(remove_duplicate=False)) + list(module.named_buffers(
            remove_duplicate=False)):
        by_id.setdefault(id(t), []).append(n)
    out = {}
    for names in by_id.values():
        hits = [n for n in names if n in given]
        if len(hits) > 1:
            vals = [given[n] for n in hits]
            if any(v is not vals[0] for v in vals[1:]):
                raise ValueError(f"functional_call got multiple values for keys {hits}, which are tied. "
                                 "Consider using tie_weights=False")
        if hits:
            for n in names:
                if n not in given:
                    out[n] = given[hits[0]]
    return out


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    given = dict(parameters_and_buffers)
    if tie_weights:
        given.update(_tied_names(module, given))
    if strict:
        names = {n for n, _ in module.named_parameters(remove_duplicate=False)} | {
            n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing = sorted(names - set(given))
        unexpected = sorted(set(given) - names)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(),
                                                                                 "\n\t".join(msgs)))
    saved = []
    try:
        for name, tensor in given.items():
            sub, attr = _submodule_and_attr(module, name)
            if attr in sub._parameters:
                saved.append((sub._parameters, attr, sub._parameters[attr]))
                sub._parameters[attr] = tensor
            elif attr in sub._buffers:
                saved.append((sub._buffers, attr, sub._buffers[attr]))
                sub._buffers[attr] = tensor
            else:
                had = attr in sub.__dict__
                saved.append((sub.__dict__, attr, sub.__dict__.get(attr)) if had else (sub.__dict__, attr, _ABSENT))
                sub.__dict__[attr] = tensor
        yield
    finally:
        for store, attr, orig in reversed(saved):
            if orig is _ABSENT:
                store.pop(attr, None)
            else:
                store[attr] = orig


_ABSENT = object()


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. "
                  "Please use `torch.func.functional_call` instead which is a drop-in replacement.", FutureWarning,
                  stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)

