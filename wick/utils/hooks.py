"""torch.utils.hooks: RemovableHandle and BackwardHook, the machinery behind Module.register_full_backward_hook and
register_full_backward_pre_hook."""
import warnings

from .. import _C
from ..nn.modules.module import RemovableHandle  # noqa: F401

__all__ = ['RemovableHandle', 'BackwardHook']


class BackwardHook:
    """Wraps a module call: the tensor arguments pass through one BackwardHookFunction node and the outputs through
    another. When the outputs' node receives its gradients, the pre-hooks run (they may replace grad_output); when
    the inputs' node has computed the input gradients, the hooks run with (module, grad_input, grad_output) and
    may replace grad_input. With no input that requires grad, the hooks run at the outputs' node with
    grad_input all None (and a warning)."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _spread(indices, values, size):
        full = [None] * size
        for i, v in zip(indices, values):
            full[i] = v
        return tuple(full)

    @staticmethod
    def _gather(indices, values):
        return tuple(values[i] for i in indices)

    def _on_input_node(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:   # the outputs' node did not run: this is another backward
                return None
            res = self._spread(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError('Backward hook returned an invalid number of grad_input, got %d, but expected '
                                       '%d' % (len(out), len(res)))
                res = out
            self.grad_outputs = None
            return self._gather(self.input_tensors_index, res)
        grad_fn.register_hook(hook)

    def _on_output_node(self, grad_fn):
        def hook(_, grad_output):
            self.grad_outputs = self._spread(self.output_tensors_index, grad_output, self.n_outputs)
            if self.user_pre_hooks:
                n = len(self.grad_outputs)
                for pre_hook in self.user_pre_hooks:
                    new = pre_hook(self.module, self.grad_outputs)
                    if new is None:
                        continue
                    if len(new) != n:
                        raise RuntimeError('Backward pre hook returned an invalid number of grad_output, got %d, but '
                                           'expected %d' % (len(new), n))
                    self.grad_outputs = new
            grad_outputs = self.grad_outputs
            if self.input_tensors_index is None:
                warnings.warn('Full backward hook is firing when gradients are computed with respect to module '
                              'outputs since no inputs require gradients. See https://docs.pytorch.org/docs/main/'
                              'generated/torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more '
                              'details.', stacklevel=5)
                grad_inputs = self._spread([], [], self.n_inputs)
                for user_hook in self.user_hooks:
                    res = user_hook(self.module, grad_inputs, self.grad_outputs)
                    if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                        raise RuntimeError('Backward hook for Modules where no input requires gradient should always '
                                           'return None or None for all gradients.')
                self.grad_outputs = None
            if grad_outputs is not None:
                return tuple(grad_outputs[i] for i in self.output_tensors_index)
            return None
        grad_fn.register_hook(hook)

    def _wrap(self, on_node, args):
        from ..nn.modules._functions import BackwardHookFunction
        idx = [i for i, a in enumerate(args) if isinstance(a, _C.TensorBase)]
        tensors = [args[i] for i in idx]
        if not (any(t.requires_grad for t in tensors) and _C.is_grad_enabled()):
            return args, None
        new = BackwardHookFunction.apply(*tensors)
        if len(new) == 0:
            raise RuntimeError('Cannot set Module backward hook for a Module with no input Tensors.')
        fns = [t.grad_fn for t in new if t.grad_fn is not None and t.grad_fn.name() == 'BackwardHookFunctionBackward']
        if not fns:
            raise RuntimeError('Error while setting up backward hooks. Please open an issue with a code sample to '
                               'reproduce this.')
        on_node(fns[0])
        out = list(args)
        for i, t in zip(idx, new):
            out[i] = t
        return (tuple(out) if type(args) is tuple else type(args)(*out)), idx

    def setup_input_hook(self, args):
        res, idx = self._wrap(self._on_input_node, args)
        self.n_inputs = len(args)
        self.input_tensors_index = idx
        return res

    def setup_output_hook(self, args):
        single = not isinstance(args, tuple)
        if single:
            args = (args,)
        res, idx = self._wrap(self._on_output_node, args)
        self.n_outputs = len(args)
        self.output_tensors_index = idx
        return res[0] if single else res
