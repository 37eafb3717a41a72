"""torch.utils.checkpoint: activation checkpointing. A checkpointed function runs its forward without keeping its
activations; backward runs it again (with the forward's RNG state, so dropout draws the same masks) and backprops
through the recomputed graph.

use_reentrant=True is torch's CheckpointFunction, ported: an autograd.Function whose backward calls
autograd.backward on the recomputed graph (so it refuses autograd.grad and backward(inputs=...), as torch's does).

use_reentrant=False: torch implements it with saved-tensor hooks, which wick's engine does not have. wick runs the
forward once with grad (to learn which leaves outside the arguments, the module's parameters, the graph reaches),
keeps only the outputs' values and frees that graph, and records one node whose backward recomputes the function
and hands gradients to the arguments and those leaves through autograd.grad (so it works with autograd.grad,
backward(inputs=...), keyword arguments and double backward). The differences from torch: the outputs' grad_fn
is that node (named _CheckpointNonReentrantBackward), not the function's last op; a function that uses a non-leaf tensor
requiring grad that is not one of its arguments raises NotImplementedError."""
import warnings

import wick as torch

__all__ = ['checkpoint', 'checkpoint_sequential', 'detach_variable', 'check_backward_validity', 'noop_context_fn']


def detach_variable(inputs):
    if isinstance(inputs, tuple):
        out = []
        for inp in inputs:
            if not isinstance(inp, torch.Tensor):
                out.append(inp)
                continue
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            out.append(x)
        return tuple(out)
    raise RuntimeError(
        f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, torch.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def noop_context_fn():
    import contextlib
    return contextlib.nullcontext(), contextlib.nullcontext()


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = torch.get_rng_state()
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if torch.is_tensor(arg):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with torch.no_grad():
            outputs = run_function(*args)
        return outputs

    @staticmethod
    def backward(ctx, *args):
        if not torch.autograd._is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible"
                " with .grad() or passing an `inputs` parameter to .backward()."
                " To resolve this error, you can either set use_reentrant=False,"
                " or call .backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, idx in enumerate(ctx.tensor_indices):
            inputs[idx] = ctx.saved_tensors[i]
        with torch.random.fork_rng(enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                torch.set_rng_state(ctx.fwd_cpu_state)
            detached_inputs = detach_variable(tuple(inputs))
            with torch.enable_grad():
                outputs = ctx.run_function(*detached_inputs)
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        outputs_with_grad = []
        args_with_grad = []
        for i in range(len(outputs)):
            if torch.is_tensor(outputs[i]) and outputs[i].requires_grad:
                outputs_with_grad.append(outputs[i])
                args_with_grad.append(args[i])
        if len(outputs_with_grad) == 0:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        torch.autograd.backward(outputs_with_grad, args_with_grad)
        grads = tuple(inp.grad if isinstance(inp, torch.Tensor) else None for inp in detached_inputs)
        return (None, None) + grads


def _outer_leaves(outputs, start_seq):
    """The leaves requiring grad that the graph of `outputs` reaches (in first-seen order); refuses a node made
    before the forward began (a captured non-leaf tensor, which wick cannot hand a gradient to from here)."""
    seen, keep, leaves, stack = set(), [], [], [o.grad_fn for o in outputs if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        keep.append(node)   # the wrappers stay alive while ids are compared
        var = getattr(node, 'variable', None)
        if var is not None:
            leaves.append(var)
            continue
        if node._sequence_nr() < start_seq:
            raise NotImplementedError(
                "wick: checkpoint(use_reentrant=False) of a function that uses a non-leaf tensor requiring grad "
                "which is not one of its arguments is not supported yet (pass that tensor as an argument)")
        stack.extend(n for n, _ in reversed(node.next_functions))
    return leaves


def _next_seq():
    with torch.enable_grad():
        probe = torch.empty(0, requires_grad=True) * 1
    return probe.grad_fn._sequence_nr()


class _CheckpointNonReentrant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, st, *tensors):
        ctx.st = st
        ctx.save_for_backward(*tensors)
        return st.values

    @staticmethod
    def backward(ctx, *grads):
        st = ctx.st
        tensors = ctx.saved_tensors
        n = len(st.tensor_idx)
        args, leaves = list(st.args), tensors[n:]
        for i, idx in enumerate(st.tensor_idx):
            args[idx] = tensors[i]
        # under create_graph the recomputation runs on the saved inputs themselves, so the gradients it returns
        # depend on them (double backward); otherwise on detached copies
        higher = torch.is_grad_enabled()
        with torch.random.fork_rng(enabled=st.preserve):
            if st.preserve:
                torch.set_rng_state(st.rng_state)
            detached = tuple(args) if higher else detach_variable(tuple(args))
            with torch.enable_grad():
                outs = st.function(*detached, **st.kwargs)
        outs = (outs,) if isinstance(outs, torch.Tensor) else tuple(outs)
        pairs = [(o, g) for o, g in zip(outs, grads) if isinstance(o, torch.Tensor) and o.requires_grad
                 and g is not None]
        wanted = [detached[idx] for idx in st.tensor_idx] + list(leaves)
        targets = [w for w in wanted if w.requires_grad]
        res = iter(torch.autograd.grad([o for o, _ in pairs], targets, [g for _, g in pairs], allow_unused=True,
                                       create_graph=higher) if pairs and targets else ())
        got = [next(res, None) if w.requires_grad else None for w in wanted]
        return (None,) + tuple(got)


class _State:
    pass


def _checkpoint_without_reentrant(function, preserve, *args, **kwargs):
    if not torch.is_grad_enabled():
        return function(*args, **kwargs)
    st = _State()
    st.function, st.preserve, st.kwargs = function, preserve, kwargs
    if preserve:
        st.rng_state = torch.get_rng_state()
    st.tensor_idx = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
    st.args = [None if isinstance(a, torch.Tensor) else a for a in args]
    detached = detach_variable(tuple(args))
    start = _next_seq()
    out = function(*detached, **kwargs)
    single = isinstance(out, torch.Tensor)
    outs = (out,) if single else out
    if not isinstance(outs, tuple) or not all(isinstance(o, torch.Tensor) for o in outs):
        raise NotImplementedError("wick: checkpoint(use_reentrant=False) of a function that returns something "
                                  "other than a tensor or a tuple of tensors is not supported yet")
    tracked = [o for o in outs if o.requires_grad]
    mine = {id(detached[i]) for i in st.tensor_idx}
    leaves = [v for v in _outer_leaves(tracked, start) if id(v) not in mine]
    st.values = tuple(o.detach() for o in outs)
    if len(st.values) == 1 and single:
        st.values = st.values[0]
    del out, outs, tracked, detached
    return _CheckpointNonReentrant.apply(st, *[args[i] for i in st.tensor_idx], *leaves)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be "
            "passed explicitly. Starting in PyTorch 2.9, calling checkpoint "
            "without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if context_fn is not noop_context_fn or debug is not False:
        raise NotImplementedError("wick: checkpoint(context_fn=..., debug=True) is not supported yet")
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    return _checkpoint_without_reentrant(function, preserve, *args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
            "parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, torch.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
