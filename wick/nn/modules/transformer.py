"""Transformer, TransformerEncoder(Layer), TransformerDecoder(Layer): compositions of MultiheadAttention, Linear,
Dropout and LayerNorm, with torch's inference fast paths emulated where their result differs from the plain
composition (the encoder's nested-tensor path gives zeros at padded positions; the fast paths ignore is_causal)."""
import copy
import warnings

import wick as torch
from .. import functional as F
from ..init import xavier_uniform_
from .activation import MultiheadAttention, ReLU, GELU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ['Transformer', 'TransformerEncoder', 'TransformerDecoder', 'TransformerEncoderLayer',
           'TransformerDecoderLayer']


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    """[sz, sz] additive causal mask: -inf above the diagonal, 0 on and below it."""
    return torch.triu(torch.full((sz, sz), float('-inf'), dtype=dtype, device=device), diagonal=1)


def _get_seq_len(src, batch_first):
    src_size = src.size()
    if len(src_size) == 2:
        return src_size[0]                       # unbatched [S, E]
    return src_size[1 if batch_first else 0]     # [B, S, E] or [S, B, E]


class _ReluDefault:
    """The default activation (F.relu): functional.py imports this package, so F.relu does not exist yet when the
    signatures below are evaluated; the constructors swap it for F.relu itself."""

    def __repr__(self):
        return "<function relu>"


_relu = _ReluDefault()


def _bind_relu_default():
    """Put F.relu itself in the constructors' defaults once functional.py is loaded (wick/nn/__init__.py calls this),
    so signatures and help() show torch's default."""
    for init in (Transformer.__init__, TransformerEncoderLayer.__init__, TransformerDecoderLayer.__init__):
        init.__defaults__ = tuple(F.relu if d is _relu else d for d in init.__defaults__)


def _get_clones(module, N):
    return ModuleList([copy.deepcopy(module) for i in range(N)])


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    """is_causal as given when it is a bool; when None, whether mask equals the square causal mask."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        if mask.size() == causal.size():
            make_causal = bool((mask == causal).all())
        else:
            make_causal = False
    return make_causal


_nested_warned = [False]


def _warn_nested(num_layers):
    # torch warns once per process (TORCH_WARN_ONCE in NestedTensorImpl) when the encoder builds its nested tensor;
    # under set_warn_always every nested tensor it makes warns: one for the input and seven in each fused layer
    if _nested_warned[0] and not torch.is_warn_always_enabled():
        return
    _nested_warned[0] = True
    for _ in range(1 + 7 * num_layers if torch.is_warn_always_enabled() else 1):
        warnings.warn("The PyTorch API of nested tensors is in prototype stage and will change in the near future. "
                      "We recommend specifying layout=torch.jagged when constructing a nested tensor, as this layout "
                      "receives active development, has better operator coverage, and works with torch.compile. "
                      "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/NestedTensorImpl.cpp:177.)",
                      stacklevel=3)


def _check_nested_mask(src, mask):
    # torch._nested_tensor_from_mask's checks of the padding mask against src [B, S, E]
    if mask.dim() != 2:
        raise RuntimeError("Padding mask should be 2D")
    if tuple(mask.shape) != tuple(src.shape[:2]):
        raise RuntimeError("Mask size should match input size")


def _left_aligned(valid):
    """valid [B, S] bool: every row is some Trues followed by Falses (torch._nested_tensor_from_mask_left_aligned)."""
    if valid.size(-1) < 2:
        return True
    return not bool((valid[..., 1:] & valid[..., :-1].logical_not()).any())


class Transformer(Module):
    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=_relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, **factory_kwargs)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, **factory_kwargs)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        is_batched = src.dim() == 3
        if not self.batch_first and src.size(1) != tgt.size(1) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        elif self.batch_first and src.size(0) != tgt.size(0) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        return _generate_square_subsequent_mask(sz, dtype=dtype, device=device)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)


class TransformerEncoder(Module):
    __constants__ = ['norm']

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor     # as given
        self.use_nested_tensor = enable_nested_tensor        # whether the nested-tensor path may be used
        self.mask_check = mask_check
        why_not = ""
        enc_layer = "encoder_layer"
        if not isinstance(encoder_layer, TransformerEncoderLayer):
            why_not = f"{enc_layer} was not TransformerEncoderLayer"
        elif encoder_layer.norm_first:
            why_not = f"{enc_layer}.norm_first was True"
        elif not encoder_layer.self_attn.batch_first:
            why_not = (f"{enc_layer}.self_attn.batch_first was not True"
                       "(use batch_first for better inference performance)")
        elif not encoder_layer.self_attn._qkv_same_embed_dim:
            why_not = f"{enc_layer}.self_attn._qkv_same_embed_dim was not True"
        elif encoder_layer.self_attn.in_proj_bias is None:
            why_not = f"{enc_layer}.self_attn was passed bias=False"
        elif not encoder_layer.activation_relu_or_gelu:
            why_not = f"{enc_layer}.activation_relu_or_gelu was not True"
        elif encoder_layer.norm1.eps != encoder_layer.norm2.eps:
            why_not = f"{enc_layer}.norm1.eps was not equal to {enc_layer}.norm2.eps"
        elif encoder_layer.self_attn.num_heads % 2 == 1:
            why_not = f"{enc_layer}.self_attn.num_heads is odd"
        if enable_nested_tensor and why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def _why_not_nested(self, src, mask, src_key_padding_mask):
        first_layer = self.layers[0]
        if not torch.backends.mha.get_fastpath_enabled():
            return "torch.backends.mha.get_fastpath_enabled() was not True"
        if not hasattr(self, 'use_nested_tensor'):
            return "use_nested_tensor attribute not present"
        if not self.use_nested_tensor:
            return "self.use_nested_tensor (set in init) was not True"
        if first_layer.training:
            return "self.layers[0] was in training mode"
        if src.dim() != 3:
            return f"input not batched; expected src.dim() of 3 but got {src.dim()}"
        if src_key_padding_mask is None:
            return "src_key_padding_mask was None"
        if getattr(self, 'mask_check', True) and not _left_aligned(_check_nested_mask(src, src_key_padding_mask) or
                                                                  src_key_padding_mask.logical_not()):
            return "mask_check enabled, and src and src_key_padding_mask was not left aligned"
        if mask is not None:
            return "src_key_padding_mask and mask were both supplied"
        sa = first_layer.self_attn
        tensor_args = (src, sa.in_proj_weight, sa.in_proj_bias, sa.out_proj.weight, sa.out_proj.bias,
                       first_layer.norm1.weight, first_layer.norm1.bias, first_layer.norm2.weight,
                       first_layer.norm2.bias, first_layer.linear1.weight, first_layer.linear1.bias,
                       first_layer.linear2.weight, first_layer.linear2.bias)
        if torch.is_grad_enabled() and any(x.requires_grad for x in tensor_args):
            return ("grad is enabled and at least one of query or the input/output projection weights or biases "
                    "requires_grad")
        return ""

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        src_key_padding_mask = F._canonical_mask(src_key_padding_mask, "src_key_padding_mask", F._none_or_dtype(mask),
                                                 "mask", src.dtype)
        mask = F._canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        output = src
        batch_first = self.layers[0].self_attn.batch_first
        kpm_for_layers = src_key_padding_mask
        valid = None
        if not self._why_not_nested(src, mask, src_key_padding_mask):
            # torch packs the unpadded rows into a nested tensor, runs the layers on it and pads the result with 0:
            # the same values as running on the padded batch with every padded key masked out, then zeroing the
            # padded positions (valid [B, S] bool: True where torch keeps the position)
            _check_nested_mask(src, src_key_padding_mask)
            _warn_nested(len(self.layers))
            # torch keeps the first (number of unmasked positions) of each row: the mask itself when it is left-aligned
            lengths = src_key_padding_mask.logical_not().sum(-1, keepdim=True)
            valid = torch.arange(src.size(1)) < lengths
            kpm_for_layers = torch.zeros(valid.shape, dtype=src.dtype).masked_fill_(valid.logical_not(), float('-inf'))
        seq_len = _get_seq_len(src, batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=kpm_for_layers)
        if valid is not None:
            output = output.masked_fill(valid.logical_not().unsqueeze(-1), 0.0).contiguous()
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    __constants__ = ['norm']

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerEncoderLayer(Module):
    __constants__ = ['norm_first']

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=_relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **factory_kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory_kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if activation is _relu:
            activation = F.relu
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        # 1: relu, 2: gelu (the fast path's two activations), 0: anything else
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, 'activation'):
            self.activation = F.relu

    def _why_not_fast_path(self, src, src_mask, src_key_padding_mask):
        if not torch.backends.mha.get_fastpath_enabled():
            return "torch.backends.mha.get_fastpath_enabled() was not True"
        if src.dim() != 3:
            return f"input not batched; expected src.dim() of 3 but got {src.dim()}"
        if self.training:
            return "training is enabled"
        if not self.self_attn.batch_first:
            return "self_attn.batch_first was not True"
        if self.self_attn.in_proj_bias is None:
            return "self_attn was passed bias=False"
        if not self.self_attn._qkv_same_embed_dim:
            return "self_attn._qkv_same_embed_dim was not True"
        if not self.activation_relu_or_gelu:
            return "activation_relu_or_gelu was not True"
        if self.norm1.eps != self.norm2.eps:
            return "norm1.eps is not equal to norm2.eps"
        if self.self_attn.num_heads % 2 == 1:
            return "num_head is odd"
        if any(len(getattr(m, '_forward_hooks', {})) + len(getattr(m, '_forward_pre_hooks', {}))
               for m in self.modules()):
            return "forward pre-/hooks are attached to the module"
        sa = self.self_attn
        tensor_args = (src, sa.in_proj_weight, sa.in_proj_bias, sa.out_proj.weight, sa.out_proj.bias,
                       self.norm1.weight, self.norm1.bias, self.norm2.weight, self.norm2.bias, self.linear1.weight,
                       self.linear1.bias, self.linear2.weight, self.linear2.bias)
        if torch.is_grad_enabled() and any(x.requires_grad for x in tensor_args):
            return ("grad is enabled and at least one of query or the input/output projection weights or biases "
                    "requires_grad")
        return ""

    def _fast_forward(self, src, merged_mask, mask_type):
        """torch._transformer_encoder_layer_fwd as a composite: the layer in inference with the fast attention
        (no causal hint, nan rows where everything is masked), norm1's eps for both norms."""
        sa = self.self_attn
        eps = self.norm1.eps
        E = sa.embed_dim

        def attend(x):
            return F._native_multi_head_attention(x, E, sa.num_heads, sa.in_proj_weight, sa.in_proj_bias,
                                                  sa.out_proj.weight, sa.out_proj.bias, merged_mask, False, True,
                                                  mask_type)[0]

        def feed_forward(x):
            h = F.linear(x, self.linear1.weight, self.linear1.bias)
            h = F.gelu(h) if self.activation_relu_or_gelu == 2 else F.relu(h)
            return F.linear(h, self.linear2.weight, self.linear2.bias)

        def norm(x, m):
            return F.layer_norm(x, (E,), m.weight, m.bias, eps)

        x = src
        if self.norm_first:
            x = x + attend(norm(x, self.norm1))
            x = x + feed_forward(norm(x, self.norm2))
        else:
            x = norm(x + attend(x), self.norm1)
            x = norm(x + feed_forward(x), self.norm2)
        return x

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        src_key_padding_mask = F._canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                                 F._none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = F._canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        if not self._why_not_fast_path(src, src_mask, src_key_padding_mask):
            merged_mask, mask_type = self.self_attn.merge_masks(src_mask, src_key_padding_mask, src)
            return self._fast_forward(src, merged_mask, mask_type)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    __constants__ = ['norm_first']

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=_relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            **factory_kwargs)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                                 **factory_kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory_kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        if activation is _relu:
            activation = F.relu
        if isinstance(activation, str):
            self.activation = _get_activation_fn(activation)
        else:
            self.activation = activation

    def __setstate__(self, state):
        if 'activation' not in state:
            state['activation'] = F.relu
        super().__setstate__(state)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)
