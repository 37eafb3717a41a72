"""torch.autograd.gradcheck / gradgradcheck: finite differences against the analytical Jacobian, in torch's slow mode
(its order of checks and its messages, ported from torch's gradcheck.py), for real inputs and outputs.

Differences from torch, each checkable: fast_mode=True runs the slow (full-Jacobian) check, which is stricter and
names the same output and input; complex inputs or outputs, check_forward_ad, check_batched_grad and
check_batched_forward_grad raise NotImplementedError (wick has no forward-mode AD and no vmap to test against);
check_undefined_grad backprops zeros where torch backprops undefined gradients (wick has no UndefinedGrad node)."""
import collections.abc
import itertools
import warnings

import wick as torch

__all__ = ['gradcheck', 'gradgradcheck', 'GradcheckError', 'get_numerical_jacobian', 'get_analytical_jacobian']


class GradcheckError(RuntimeError):
    pass


GradcheckError.__module__ = 'torch.autograd.gradcheck'

FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_float_or_complex_tensor(obj):
    return isinstance(obj, torch.Tensor) and (obj.is_floating_point() or obj.is_complex())


def _iter_tensors(x, only_requiring_grad=False):
    if isinstance(x, torch.Tensor):
        if x.requires_grad or not only_requiring_grad:
            yield x
    elif isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
        for elem in x:
            yield from _iter_tensors(elem, only_requiring_grad)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _check_inputs(tupled_inputs):
    any_input_requiring_grad = False
    for idx, inp in enumerate(tupled_inputs):
        if isinstance(inp, torch.Tensor) and inp.requires_grad:
            if not (inp.dtype == torch.float64 or inp.dtype == getattr(torch, 'complex128', None)):
                warnings.warn(
                    f"Input #{idx} requires gradient and "
                    "is not a double precision floating point or complex. "
                    "This check will likely fail if all the inputs are "
                    "not of double precision floating point or complex. ", stacklevel=2)
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.size())):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only "
                    "supports inputs that are non-overlapping to be able to "
                    "compute the numerical gradients correctly. You should call "
                    ".contiguous on the input before passing it to gradcheck.")
            if inp.is_complex():
                raise NotImplementedError("wick: gradcheck of complex inputs is not supported yet")
            any_input_requiring_grad = True
    if not any_input_requiring_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")
    return True


def _check_outputs_same_dtype_and_shape(output1, output2, eps, idx=None):
    on_index = f"on index {idx} " if idx is not None else ""
    if output1.shape != output2.shape:
        raise AssertionError(f"Expected `func` to return outputs with the same shape"
                             f" when inputs are perturbed {on_index}by {eps}, but got:"
                             f" shapes {output1.shape} and {output2.shape}.")
    if output1.dtype != output2.dtype:
        raise AssertionError(f"Expected `func` to return outputs with the same dtype"
                             f" when inputs are perturbed {on_index}by {eps}, but got:"
                             f" dtypes {output1.dtype} and {output2.dtype}.")


def _numerical_jacobian_wrt(fn, inputs, outputs, input_idx, eps):
    """[input numel, output numel] per float output: central differences, perturbing input_idx in place."""
    inp = inputs[input_idx]
    x = inp.data
    jacobians = [o.new_zeros((inp.numel(), o.numel())) for o in outputs if _is_float_or_complex_tensor(o)]
    for d_idx, idx in enumerate(itertools.product(*[range(m) for m in x.size()])):
        entry = x[idx]
        orig = entry.clone()
        entry.copy_(orig - eps)
        outa = _as_tuple(fn(*inputs))
        entry.copy_(orig + eps)
        outb = _as_tuple(fn(*inputs))
        entry.copy_(orig)
        cols = []
        for a, b in zip(outa, outb):
            _check_outputs_same_dtype_and_shape(a, b, eps, idx=idx)
            cols.append(((b - a) / (2 * eps)).detach().reshape(-1))
        for jac, col in zip(jacobians, [c for c, o in zip(cols, outputs) if _is_float_or_complex_tensor(o)]):
            jac[d_idx] = col
    return jacobians


def _get_numerical_jacobian(fn, inputs, outputs, eps):
    inp_indices = [i for i, a in enumerate(inputs) if isinstance(a, torch.Tensor) and a.requires_grad]
    return [_numerical_jacobian_wrt(fn, inputs, outputs, i, eps) for i in inp_indices]


def _analytical_rows(vjp_fn, sample_output):
    grad_out_base = torch.zeros_like(sample_output)
    flat_grad_out = grad_out_base.view(-1)
    rows = []
    for j in range(flat_grad_out.numel()):
        flat_grad_out.zero_()
        flat_grad_out[j] = 1.0
        grad_inputs = vjp_fn(grad_out_base)
        for i, d_x in enumerate(grad_inputs):
            if j == 0:
                rows.append([])
            rows[i] += [d_x.clone() if isinstance(d_x, torch.Tensor) else None]
    return rows


def _stack_and_check(rows, inputs, numel_outputs):
    diff_inputs = list(_iter_tensors(inputs, True))
    out = [t.new_zeros((t.numel(), numel_outputs)) for t in inputs
           if _is_float_or_complex_tensor(t) and t.requires_grad]
    sizes_ok, types_ok = True, True
    for i, tensor_list in enumerate(rows):
        inp, jac = diff_inputs[i], out[i]
        for j, tensor in enumerate(tensor_list):
            if tensor is not None and tensor.size() != inp.size():
                sizes_ok = False
            elif tensor is not None and tensor.dtype != inp.dtype:
                types_ok = False
            if tensor is None:
                jac[:, j].zero_()
            else:
                jac[:, j] = tensor.reshape(-1)
    return out, sizes_ok, types_ok


def _check_jacobians_equal(j1, j2, atol):
    for a, b in zip(j1, j2):
        if a.numel() != 0 and (a - b).abs().max() > atol:
            return False
    return True


def _analytical_jacobian_checked(inputs, output, nondet_tol):
    """(jacobian per input, reentrant, sizes_ok, types_ok): two backward sweeps over one-hot grad_outputs."""
    diff_inputs = list(_iter_tensors(inputs, True))

    def vjp_fn(grad_output):
        return torch.autograd.grad(output, diff_inputs, grad_output, retain_graph=True, allow_unused=True)

    rows1 = _analytical_rows(vjp_fn, output.clone())
    rows2 = _analytical_rows(vjp_fn, output.clone())
    jac1, sizes_ok, types_ok = _stack_and_check(rows1, inputs, output.numel())
    jac2, _, _ = _stack_and_check(rows2, inputs, output.numel())
    return tuple(jac1), _check_jacobians_equal(jac1, jac2, nondet_tol), sizes_ok, types_ok


def _analytical_jacobian(inputs, output, nondet_tol, check_grad_dtypes):
    jac1, reentrant, sizes_ok, types_ok = _analytical_jacobian_checked(inputs, output, nondet_tol)
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with "
            "same input and grad_output multiple times gives different values, "
            "although analytical gradient matches numerical gradient."
            f"The tolerance for nondeterminism was {nondet_tol}." + FAILED_NONDET_MSG)
    return jac1


def _allclose_with_type_promotion(a, b, rtol, atol):
    promoted = torch.promote_types(a.dtype, b.dtype)
    return torch.allclose(a.to(promoted), b.to(promoted), rtol=rtol, atol=atol)


def _notallclose_msg(analytical, numerical, output_idx, input_idx):
    return (f"Jacobian mismatch for output {output_idx:d} with respect to input {input_idx:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


def _slow_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol):
    func_out = _as_tuple(func_out)
    if not outputs:
        for per_input in _get_numerical_jacobian(func, tupled_inputs, func_out, eps):
            for jacobian in per_input:
                if torch.ne(jacobian, 0).sum() > 0:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    numerical = list(zip(*_get_numerical_jacobian(func, tupled_inputs, func_out, eps)))
    numerical = [nj for o, nj in zip(func_out, numerical) if o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(tupled_inputs, o, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, numerical[i])):
            if not _allclose_with_type_promotion(a, n, rtol, atol):
                raise GradcheckError(_notallclose_msg(a, n, i, j))
    return True


def _test_backward_mul_by_grad_output(outputs, inputs):
    diff_inputs = list(_iter_tensors(inputs, True))
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads_input = torch.autograd.grad(outputs, diff_inputs, [torch.zeros_like(o) for o in outputs],
                                      allow_unused=True)
    for gi, di in zip(grads_input, diff_inputs):
        if gi is None:
            continue
        if not gi.eq(0).all():
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.device != di.device:
            raise GradcheckError("grad is incorrect device")
        if gi.size() != di.size():
            raise GradcheckError("grad is incorrect size")
    return True


def _test_undefined_backward_mode(func, outputs, inputs):
    diff_inputs = list(_iter_tensors(inputs, True))
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")

    def warn_bc_breaking():
        warnings.warn("Backwards compatibility: New undefined gradient support checking "
                      "feature is enabled by default, but it may break existing callers "
                      "of this function. If this is true for you, you can call this "
                      'function with "check_undefined_grad=False" to disable the feature', stacklevel=2)

    outs = [o for o in _differentiable_outputs(func(*inputs)) if isinstance(o, torch.Tensor)]
    try:
        grads_input = torch.autograd.grad(outs, diff_inputs, [torch.zeros_like(o) for o in outs], allow_unused=True)
    except RuntimeError as e:
        warn_bc_breaking()
        raise GradcheckError('Expected backward function to handle undefined output grads. '
                             'Please look at "Notes about undefined output gradients" in '
                             '"tools/autograd/derivatives.yaml"') from e
    for gi in grads_input:
        if gi is not None and not gi.eq(0).all():
            warn_bc_breaking()
            raise GradcheckError('Expected all input grads to be undefined or zero when all output grads are '
                                 'undefined or zero. Please look at "Notes about undefined output gradients" in '
                                 '"tools/autograd/derivatives.yaml"')
    return True


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
                      check_batched_grad, check_batched_forward_grad, check_forward_ad, check_backward_ad, fast_mode,
                      masked):
    for flag, name in ((check_batched_grad, 'check_batched_grad'), (check_forward_ad, 'check_forward_ad'),
                       (check_batched_forward_grad, 'check_batched_forward_grad')):
        if flag:
            raise NotImplementedError(f"wick: gradcheck({name}=True) is not supported yet (wick has no vmap / "
                                      "forward-mode AD)")
    tupled_inputs = _as_tuple(inputs)
    _check_inputs(tupled_inputs)
    func_out = func(*tupled_inputs)
    outputs = _differentiable_outputs(func_out)
    if any(o.is_complex() for o in _as_tuple(func_out) if isinstance(o, torch.Tensor)):
        raise NotImplementedError("wick: gradcheck of complex outputs is not supported yet")
    if check_backward_ad:
        _slow_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol)
    if not check_backward_ad:
        return True
    _test_backward_mul_by_grad_output(outputs, tupled_inputs)
    if check_undefined_grad and check_backward_ad:
        _test_undefined_backward_mode(func, outputs, tupled_inputs)
    return True


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    args = dict(func=func, inputs=inputs, eps=eps, atol=atol, rtol=rtol, nondet_tol=nondet_tol,
                check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                check_batched_grad=check_batched_grad, check_batched_forward_grad=check_batched_forward_grad,
                check_forward_ad=check_forward_ad, check_backward_ad=check_backward_ad, fast_mode=fast_mode,
                masked=masked)
    if not raise_exception:
        try:
            return _gradcheck_helper(**args)
        except GradcheckError:
            return False
    return _gradcheck_helper(**args)


def _make_grad_output(x):
    """torch.testing.make_tensor(shape, low=-1, high=1, requires_grad=True): uniform_(-1, 1) from the default
    generator, as torch draws it."""
    dtype = x.dtype if x.is_floating_point() or x.is_complex() else torch.double
    t = torch.empty(x.shape, dtype=dtype)
    with torch.no_grad():
        t.uniform_(-1, 1)
    return t.requires_grad_(True)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0, check_undefined_grad=True,
                  check_grad_dtypes=False, check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True,
                  fast_mode=False, masked=False):
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    if gen_non_contig_grad_outputs and grad_outputs is None:
        raise NotImplementedError("wick: gradgradcheck(gen_non_contig_grad_outputs=True) is not supported yet")
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(_make_grad_output(x) for x in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_args_indices = {i for i, x in enumerate(tupled_inputs) if isinstance(x, torch.Tensor) and
                               x.requires_grad}
    diff_grad_output_indices = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_input_args_indices else x
                           for i, x in enumerate(args[:-num_outputs]))
        outputs = _differentiable_outputs(func(*input_args))
        grad_outputs = tuple(x.requires_grad_() if i in diff_grad_output_indices else x
                             for i, x in enumerate(args[-num_outputs:]))
        diff_input_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_args_indices)
        grad_inputs = torch.autograd.grad(outputs, diff_input_args, grad_outputs, create_graph=True,
                                          allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                     check_batched_grad=check_batched_grad, fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    warnings.warn("`get_numerical_jacobian` was part of PyTorch's private API and not "
                  "meant to be exposed. We are deprecating it and it will be removed "
                  "in a future version of PyTorch. If you have a specific use for "
                  "this or feature request for this to be a stable API, please file "
                  "us an issue at https://github.com/pytorch/pytorch/issues/new", FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_numerical_jacobian no longer "
                         "supports values of grad_out != 1.0.")
    if target is not None:
        raise NotImplementedError("wick: get_numerical_jacobian(target=...) is not supported yet")

    def fn_pack_inps(*inps):
        return fn(inps)
    inputs = _as_tuple(inputs)
    jacobians = _get_numerical_jacobian(fn_pack_inps, inputs, _as_tuple(fn_pack_inps(*inputs)), eps)
    return tuple(jacobian_for_each_output[0] for jacobian_for_each_output in jacobians)


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    warnings.warn("`get_analytical_jacobian` was part of PyTorch's private API and not "
                  "meant to be exposed. We are deprecating it and it will be removed "
                  "in a future version of PyTorch. If you have a specific use for "
                  "this or feature request for this to be a stable API, please file "
                  "us an issue at https://github.com/pytorch/pytorch/issues/new", FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_analytical_jacobian no longer "
                         "supports values of grad_out != 1.0.")
    return _analytical_jacobian_checked(inputs, output, nondet_tol)

