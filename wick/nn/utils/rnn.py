"""torch.nn.utils.rnn: PackedSequence and the pad / pack helpers.

A PackedSequence holds the time steps of a batch of sequences sorted by decreasing length, step after step:
`data` is (sum(lengths), *features), `batch_sizes[t]` is how many sequences are still running at step t (a
CPU int64 tensor), and `sorted_indices` / `unsorted_indices` map between the caller's batch order and the
sorted one (None when the batch came sorted).  In torch the pack and pad kernels are ATen composites
(_pack_padded_sequence, _pad_packed_sequence, pad_sequence); here they are the same composites over wick ops,
with torch's checks and messages, and packing records a `PackPaddedSequenceBackward0` node as torch does."""
import warnings
from collections.abc import Iterable
from typing import NamedTuple

import wick as torch
from ...autograd.function import Function, BackwardCFunction

__all__ = [
    'PackedSequence', 'invert_permutation', 'pack_padded_sequence', 'pad_packed_sequence', 'pad_sequence',
    'unpad_sequence', 'pack_sequence', 'unpack_sequence',
]


class PackedSequence_(NamedTuple):
    data: torch.Tensor
    batch_sizes: torch.Tensor
    sorted_indices: torch.Tensor
    unsorted_indices: torch.Tensor


def bind(optional, fn):
    if optional is None:
        return None
    return fn(optional)


class PackedSequence(PackedSequence_):
    """Holds the data and list of batch_sizes of a packed sequence (made by pack_padded_sequence /
    pack_sequence, never by hand)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes, bind(self.sorted_indices, lambda t: t.pin_memory()),
                          bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        non_blocking = kwargs.get('non_blocking', False)

        def call_to(t):
            return t.to(data.device, non_blocking=non_blocking)
        return type(self)(data, self.batch_sizes, bind(self.sorted_indices, call_to), bind(self.unsorted_indices, call_to))

    def cuda(self, *args, **kwargs):
        kwargs['device'] = 'cuda'
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        kwargs['device'] = 'cpu'
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=torch.double)

    def float(self):
        return self.to(dtype=torch.float)

    def half(self):
        return self.to(dtype=torch.half)

    def long(self):
        return self.to(dtype=torch.long)

    def int(self):
        return self.to(dtype=torch.int)

    def short(self):
        return self.to(dtype=torch.short)

    def char(self):
        return self.to(dtype=torch.int8)

    def byte(self):
        return self.to(dtype=torch.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != 'cpu':
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be created manually. "
                "They should be instantiated by functions like pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def _packed_sequence_init(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    data, batch_sizes, sorted_indices, unsorted_indices = _packed_sequence_init_args(
        data, batch_sizes, sorted_indices, unsorted_indices)
    return PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)


def invert_permutation(permutation):
    """The inverse of a 1-D permutation (between sorted and unsorted indices of a PackedSequence)."""
    if permutation is None:
        return None
    output = torch.empty_like(permutation)
    output.scatter_(0, permutation, torch.arange(0, permutation.numel(), device=permutation.device))
    return output


# ------------------------------------------------------------------------------------------ the kernels
def _check_long_tensor(t):
    if not (t.dim() == 1 and t.device.type == 'cpu' and t.dtype == torch.int64):
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{t.dim()}D {t.device} {_scalar_type_name(t.dtype)} tensor")


def _scalar_type_name(dtype):
    return {'float32': 'Float', 'float64': 'Double', 'float16': 'Half', 'bfloat16': 'BFloat16', 'int64': 'Long',
            'int32': 'Int', 'int16': 'Short', 'int8': 'Char', 'uint8': 'Byte', 'bool': 'Bool',
            'complex64': 'ComplexFloat', 'complex128': 'ComplexDouble'}.get(str(dtype).split('.')[-1], str(dtype))


def _pack_padded_forward(input, lengths, batch_first):
    """(data, batch_sizes) of a padded (T, B, *) input (or (B, T, *) with batch_first); lengths an int64 list."""
    if batch_first:
        input = input.transpose(0, 1)
    batch_size = input.size(1)
    if input.numel() <= 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if len(lengths) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                           f"(batch_size={batch_size})")
    if lengths[batch_size - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    for i in range(batch_size - 1):
        if lengths[batch_size - 1 - i] > lengths[batch_size - 2 - i]:
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability.")
    # Scan the columns from the shortest sequence: every time the length grows, the block of steps
    # [prev_l, l) of the first batch_size - i sequences joins the output.
    steps, batch_sizes = [], []
    step_shape = [-1] + list(input.shape[2:])
    prev_l = 0
    for i in range(batch_size):
        l = lengths[batch_size - 1 - i]
        if l > prev_l:
            cur = batch_size - i
            steps.append(input[prev_l:l, :cur].contiguous().view(step_shape))
            batch_sizes += [cur] * (l - prev_l)
            prev_l = l
    return torch.cat(steps), torch.tensor(batch_sizes, dtype=torch.int64)


def _pack_padded_backward(grad, input_size, batch_sizes, batch_first):
    """The gradient of a padded input from the gradient of the packed data: zeros where the padding was."""
    size = list(input_size)
    if batch_first:
        size[0], size[1] = size[1], size[0]
    grad_input = torch.zeros(size, dtype=grad.dtype, device=grad.device)
    offset = 0
    for i, b in enumerate(batch_sizes):
        grad_input[i, :b] = grad[offset:offset + b]
        offset += b
    if batch_first:
        grad_input = grad_input.transpose(0, 1)
    return grad_input


class _PackPaddedSequence(Function):
    @staticmethod
    def forward(ctx, input, lengths, batch_first):
        data, batch_sizes = _pack_padded_forward(input, lengths, batch_first)
        ctx.input_size = tuple(input.shape)
        ctx.batch_sizes = batch_sizes.tolist()
        ctx.batch_first = batch_first
        ctx.mark_non_differentiable(batch_sizes)
        return data, batch_sizes

    @staticmethod
    def backward(ctx, grad, _grad_batch_sizes):
        return _pack_padded_backward(grad, ctx.input_size, ctx.batch_sizes, ctx.batch_first), None, None


# torch's node for this op is PackPaddedSequenceBackward0
_PackPaddedSequence._backward_cls = type('PackPaddedSequenceBackward0', (BackwardCFunction,),
                                         {'_forward_cls': _PackPaddedSequence})


def _pack_padded_sequence(input, lengths, batch_first):
    lengths_t = lengths.contiguous()
    _check_long_tensor(lengths_t)
    return _PackPaddedSequence.apply(input, lengths_t.tolist(), batch_first)


def _pad_packed_sequence(data, batch_sizes_t, batch_first, padding_value, total_length):
    batch_sizes_t = batch_sizes_t.contiguous()
    _check_long_tensor(batch_sizes_t)
    batch_sizes = batch_sizes_t.tolist()
    max_batch_size = batch_sizes[0]
    max_real_seq_length = len(batch_sizes)
    max_seq_length = max_real_seq_length
    if total_length > 0:
        if total_length < max_seq_length:
            raise RuntimeError("Expected total_length to be at least the length of the longest sequence in input, "
                               f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    # output: (max_seq_length, max_batch_size, *data.shape[1:]), filled with padding_value
    output = torch.full([max_seq_length, max_batch_size] + list(data.shape[1:]), padding_value, dtype=data.dtype,
                        device=data.device)
    lengths = [0] * max_batch_size
    li = max_batch_size - 1
    data_offset, prev_batch_size, prev_i = 0, max_batch_size, 0
    for i in range(max_real_seq_length + 1):
        batch_size = batch_sizes[i] if i != max_real_seq_length else 0
        if batch_size != prev_batch_size:
            n = prev_batch_size * (i - prev_i)
            tmp = data[data_offset:data_offset + n]
            output.narrow(0, prev_i, i - prev_i).narrow(1, 0, prev_batch_size).copy_(
                tmp.view([i - prev_i, prev_batch_size] + list(data.shape[1:])))
            data_offset += n
            prev_i = i
        for _ in range(prev_batch_size - batch_size):
            lengths[li] = i
            li -= 1
        prev_batch_size = batch_size
    if batch_first:
        output = output.transpose(0, 1)
    return output, torch.tensor(lengths, dtype=torch.int64)


# ------------------------------------------------------------------------------------------ the public API
def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a Tensor containing padded sequences of variable length."""
    if not isinstance(lengths, torch.Tensor):
        lengths = torch.as_tensor(lengths, dtype=torch.int64, device='cpu')
    else:
        lengths = lengths.to(dtype=torch.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = torch.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        batch_dim = 0 if batch_first else 1
        input = input.index_select(batch_dim, sorted_indices)
    data, batch_sizes = _pack_padded_sequence(input, lengths, batch_first)
    return _packed_sequence_init(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Pads a packed batch of variable length sequences; returns (padded, lengths)."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded_output, lengths = _pad_packed_sequence(sequence.data, sequence.batch_sizes, batch_first, padding_value,
                                                  max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return padded_output.index_select(batch_dim, unsorted_indices), lengths[unsorted_indices.cpu()]
    return padded_output, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side='right'):
    """Pads a list of variable length Tensors (L_i, *) to (max L, B, *) -- (B, max L, *) with batch_first."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    # torch's argument parser: (Tensor[] sequences, bool batch_first, float padding_value, str padding_side)
    for i, s in enumerate(sequences):
        if not isinstance(s, torch.Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(s).__name__}")
    if isinstance(padding_value, bool) or not isinstance(padding_value, (int, float)):
        raise TypeError(f"pad_sequence(): argument 'padding_value' (position 3) must be float, not "
                        f"{type(padding_value).__name__}")
    if not isinstance(padding_side, str):
        raise TypeError(f"pad_sequence(): argument 'padding_side' (position 4) must be str, not "
                        f"{type(padding_side).__name__}")
    if padding_side not in ('left', 'right'):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if len(sequences) == 0:
        raise RuntimeError("received an empty list of sequences")
    if sequences[0].dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    trailing = list(sequences[0].shape[1:])
    max_len = max(s.size(0) if s.dim() else 0 for s in sequences)
    n = len(sequences)
    out_dims = ([n, max_len] if batch_first else [max_len, n]) + trailing
    # out: (B, max L, *) or (max L, B, *), filled with padding_value; each sequence copied into its slot
    out = torch.full(out_dims, padding_value, dtype=sequences[0].dtype, device=sequences[0].device)
    for i, seq in enumerate(sequences):
        length = seq.size(0)
        start = max_len - length if padding_side == 'left' else 0
        if batch_first:
            out.select(0, i).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, i).copy_(seq)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of unpadded sequences of a padded batch (transposes a time-first input in place, as torch)."""
    unpadded_sequences = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    max_length = padded_sequences.shape[1]
    idx = torch.arange(max_length, device=lengths.device)
    for seq, length in zip(padded_sequences, lengths, strict=True):
        mask = idx < length
        unpadded_sequences.append(seq[mask])
    return unpadded_sequences


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of variable length Tensors (sorted by decreasing length unless enforce_sorted=False)."""
    lengths = torch.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences of a PackedSequence (the inverse of pack_sequence)."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)


del warnings
