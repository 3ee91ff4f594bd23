"""Attention and Transformer layers: MultiheadAttention, TransformerEncoderLayer,
TransformerEncoder, TransformerDecoderLayer, TransformerDecoder, Transformer.

Shapes and masks follow MindSpore 2.10 (= PyTorch): sequence-first (L, N, E) unless
``batch_first``; unbatched (L, E) inputs allowed; boolean masks mark *disallowed*
positions (True → −inf), float masks are added to the scores; attention weights are
averaged over heads unless ``average_attn_weights=False``. Parameter names and initial
values are MindSpore's (``in_proj_weight`` XavierUniform, ``in_proj_bias`` zeros,
``out_proj`` a Dense).
"""
from __future__ import annotations

import copy
import math

from ... import ops
from ..._dtype import bool_, float32, uint8
from ..._parameter import Parameter
from ...common.initializer import HeUniform, Uniform, XavierNormal, XavierUniform, initializer
from ..cell import Cell
from .activation import GELU, ReLU
from .basic import Dense, Dropout
from .container import CellList
from .normalization import LayerNorm

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


# ----------------------------------------------------------------- attention helpers
def _pad_last(x, value):
    """Append one column of ``value`` on the last axis (for bias_k/v and zero attention)."""
    col = ops.full(tuple(x.shape[:-1]) + (1,), value, dtype=x.dtype)
    return ops.concat((x, col), -1)


def _additive_mask(mask, dtype):
    """A float mask to add to the scores: bool True (or uint8 1) → −inf."""
    if mask.dtype == uint8:
        mask = ops.cast(mask, bool_)
    if mask.dtype == bool_:
        return ops.masked_fill(ops.zeros(tuple(mask.shape), dtype), mask, float("-inf"))
    if not mask.dtype.is_floating_point:
        raise ValueError(f"`attn_mask` only support float, byte, and bool types, but got not "
                         f"{mask.dtype}.")
    return ops.cast(mask, dtype)


def _check_attn_mask(attn_mask, tgt_len, src_len, heads_batch):
    if attn_mask.ndim == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise ValueError(f"The shape of the `attn_mask` should be {(tgt_len, src_len)}, but "
                             f"got {tuple(attn_mask.shape)}.")
    elif attn_mask.ndim == 3:
        if tuple(attn_mask.shape) != (heads_batch, tgt_len, src_len):
            raise ValueError(f"The shape of the `attn_mask` should be "
                             f"{(heads_batch, tgt_len, src_len)}, but got "
                             f"{tuple(attn_mask.shape)}.")
    else:
        raise ValueError(f"The ndim of `attn_mask` only support 2 or 3, but got "
                         f"{attn_mask.ndim}.")


def _project(x, weight, bias):
    """x @ weight^T + bias over the last axis of (S, N, E), as one 2-D product."""
    rows = ops.reshape(x, (-1, x.shape[-1]))
    y = ops.matmul(rows, ops.transpose(weight, (1, 0)))
    if bias is not None:
        y = y + bias
    return ops.reshape(y, tuple(x.shape[:-1]) + (weight.shape[0],))


def _split_heads(x, batch, heads):
    """(S, N, E) -> (N, heads, S, E/heads)."""
    seq, _, embed = x.shape
    x = ops.reshape(x, (seq, batch, heads, embed // heads))
    return ops.transpose(x, (1, 2, 0, 3))


class MultiheadAttention(Cell):
    r"""Multi-head attention: :math:`softmax(QK^T/\sqrt{d})V` per head, then a projection.

    Args:
        embed_dim (int): model dimension E (divisible by ``num_heads``).
        num_heads (int): number of heads.
        dropout (float): dropout on the attention weights while training. Default: ``0.0``.
        has_bias (bool): biases of the projections. Default: ``True``.
        add_bias_kv (bool): learnt bias rows appended to key and value. Default: ``False``.
        add_zero_attn (bool): a zero row appended to key and value. Default: ``False``.
        kdim, vdim (int): key/value feature sizes. Default: ``None`` (= E).
        batch_first (bool): inputs are (N, L, E). Default: ``False``.
        dtype: parameter dtype. Default: ``mstype.float32``.

    Inputs:
        query (L, N, E), key (S, N, kdim), value (S, N, vdim), key_padding_mask (N, S),
        need_weights (bool, Default ``True``), attn_mask (L, S) or (N·heads, L, S),
        average_attn_weights (bool, Default ``True``).

    Outputs:
        (attn_output, attn_weights) — or ``(attn_output,)`` when ``need_weights`` is False.
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, dtype=float32):
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise ValueError("The init argument 'embed_dim' must be divisible by 'num_heads'.")
        dtype = float32 if dtype is None else dtype
        self.in_proj_weight = self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(
                initializer(XavierUniform(), (3 * embed_dim, embed_dim), dtype), "in_proj_weight")
        else:
            for name, dim in (("q", embed_dim), ("k", self.kdim), ("v", self.vdim)):
                setattr(self, f"{name}_proj_weight", Parameter(
                    initializer(XavierUniform(), (embed_dim, dim), dtype), f"{name}_proj_weight"))
        self.in_proj_bias = None
        if has_bias:
            self.in_proj_bias = Parameter(initializer("zeros", (3 * embed_dim,), dtype),
                                          "in_proj_bias")
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias,
                              weight_init=HeUniform(math.sqrt(5)),
                              bias_init=Uniform(1 / math.sqrt(embed_dim)), dtype=dtype)
        self.bias_k = self.bias_v = None
        if add_bias_kv:
            self.bias_k = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_k")
            self.bias_v = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_v")
        self.add_zero_attn = add_zero_attn
        self.dtype = dtype

    def _projection_weights(self):
        e = self.embed_dim
        cast = self._cast_weight
        if self._qkv_same_embed_dim:
            w = cast(self.in_proj_weight)
            weights = (w[:e], w[e:2 * e], w[2 * e:])
        else:
            weights = (cast(self.q_proj_weight), cast(self.k_proj_weight),
                       cast(self.v_proj_weight))
        if self.in_proj_bias is None:
            return weights, (None, None, None)
        b = cast(self.in_proj_bias)
        return weights, (b[:e], b[e:2 * e], b[2 * e:])

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True,
                  attn_mask=None, average_attn_weights=True):
        batched = query.ndim == 3
        if batched and (key.ndim != 3 or value.ndim != 3):
            raise ValueError(f"For batched `query`, the `key` and `value` must be 3D tensor, but "
                             f"got `key` with {key.ndim}D and `value` with {value.ndim}D.")
        if not batched:
            query, key, value = (ops.expand_dims(t, 1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = ops.expand_dims(key_padding_mask, 0)
        elif self.batch_first:
            query, key, value = (ops.swapaxes(t, 0, 1) for t in (query, key, value))
        out, weights = self._attend(query, key, value, key_padding_mask, attn_mask,
                                    average_attn_weights)
        if not batched:
            out = ops.squeeze(out, 1)
            weights = ops.squeeze(weights, 0)
        elif self.batch_first:
            out = ops.swapaxes(out, 0, 1)
        return (out, weights) if need_weights else (out,)

    def _attend(self, query, key, value, key_padding_mask, attn_mask, average):
        tgt_len, batch, embed = query.shape
        if embed != self.embed_dim:
            raise ValueError(f"The `embed_dim` should be {self.embed_dim}, but got {embed}.")
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise ValueError(f"The sequence length and batch dims of `key`: "
                             f"{tuple(key.shape[:2])} do not match `value`: "
                             f"{tuple(value.shape[:2])}.")
        heads = self.num_heads
        (wq, wk, wv), (bq, bk, bv) = self._projection_weights()
        q, k, v = _project(query, wq, bq), _project(key, wk, bk), _project(value, wv, bv)
        mask = None
        if attn_mask is not None:
            _check_attn_mask(attn_mask, tgt_len, key.shape[0], batch * heads)
            mask = _additive_mask(attn_mask, q.dtype)
        kpm = None if key_padding_mask is None else _additive_mask(key_padding_mask, q.dtype)
        if self.bias_k is not None:
            k = ops.concat((k, ops.tile(self._cast_weight(self.bias_k), (1, batch, 1))), 0)
            v = ops.concat((v, ops.tile(self._cast_weight(self.bias_v), (1, batch, 1))), 0)
            mask = None if mask is None else _pad_last(mask, 0.0)
            kpm = None if kpm is None else _pad_last(kpm, 0.0)
        q, k, v = (_split_heads(t, batch, heads) for t in (q, k, v))
        if self.add_zero_attn:
            zero = ops.zeros((batch, heads, 1, self.head_dim), k.dtype)
            k = ops.concat((k, zero), 2)
            v = ops.concat((v, zero), 2)
            mask = None if mask is None else _pad_last(mask, 0.0)
            kpm = None if kpm is None else _pad_last(kpm, 0.0)
        src_len = k.shape[2]
        scores = ops.matmul(q, ops.swapaxes(k, -2, -1)) * (1.0 / math.sqrt(self.head_dim))
        if mask is not None:
            mask = mask if mask.ndim == 2 else ops.reshape(mask, (batch, heads, tgt_len, src_len))
            scores = scores + mask
        if kpm is not None:
            if tuple(kpm.shape) != (batch, src_len):
                raise ValueError(f"The shape of `key_padding_mask` should be {(batch, src_len)}, "
                                 f"but got {tuple(key_padding_mask.shape)}.")
            scores = scores + ops.reshape(kpm, (batch, 1, 1, src_len))
        attn = ops.softmax(scores, -1)
        if self.training and self.dropout > 0:
            attn = ops.dropout(attn, p=self.dropout, training=True)
        out = ops.matmul(attn, v)                                      # (N, H, L, D)
        out = ops.reshape(ops.transpose(out, (2, 0, 1, 3)), (tgt_len, batch, embed))
        out = self.out_proj(out)
        if average:
            attn = ops.mean(attn, 1)
        return out, attn


# ----------------------------------------------------------------- transformer layers
def _activation(activation):
    """The feed-forward activation: 'relu'/'gelu', nn.ReLU/nn.GELU, or ops.relu/ops.gelu."""
    if isinstance(activation, str):
        if activation == "relu":
            return ops.relu
        if activation == "gelu":
            return ops.gelu
        raise ValueError(f"The activation must be relu/gelu, but get {activation}")
    if isinstance(activation, Cell):
        if not isinstance(activation, (ReLU, GELU)):
            raise ValueError(f"The argument 'activation' must be nn.ReLU or nn.GELU instance, but "
                             f"get {activation}.")
        return activation
    if callable(activation):
        if activation is not ops.relu and activation is not ops.gelu:
            raise ValueError(f"The argument 'activation' must be ops.relu or ops.gelu instance, "
                             f"but get {activation}.")
        return activation
    raise ValueError(f"The argument 'activation' must be str, callable or Cell instance, but get "
                     f"{activation}.")


def _feed_forward(d_model, dim_feedforward, dtype):
    """The two Dense layers of a block, with MindSpore's initialisation."""
    dense1 = Dense(d_model, dim_feedforward, weight_init=HeUniform(math.sqrt(5)),
                   bias_init=Uniform(1 / math.sqrt(d_model)), dtype=dtype)
    dense2 = Dense(dim_feedforward, d_model, weight_init=HeUniform(math.sqrt(5)),
                   bias_init=Uniform(1 / math.sqrt(dim_feedforward)), dtype=dtype)
    return dense1, dense2


def _check_padding_mask(mask):
    if mask is not None and mask.dtype != bool_ and not mask.dtype.is_floating_point:
        raise AssertionError("only bool and floating types of key_padding_mask are supported")


class _Block(Cell):
    """What encoder and decoder layers share: hyper-parameters and the feed-forward part."""

    def _init_common(self, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                     batch_first, norm_first, dtype):
        dense1, dense2 = _feed_forward(d_model, dim_feedforward, dtype)
        self.dense1 = dense1
        self.dropout = Dropout(p=dropout)
        self.dense2 = dense2
        self.activation1 = activation
        self.activation = _activation(activation)
        self.d_model = d_model
        self.nhead = nhead
        self.dim_feedforward = dim_feedforward
        self.dropout_num = dropout
        self.layernorm_eps = layer_norm_eps
        self.batch_first = batch_first
        self.norm_first = norm_first
        self.dtype = dtype

    def _norm(self):
        return LayerNorm((self.d_model,), epsilon=self.layernorm_eps, dtype=self.dtype)

    def _ff_block(self, x, dropout_out):
        x = self.dense2(self.dropout(self.activation(self.dense1(x))))
        return dropout_out(x)

    def _hyper(self):
        return (self.d_model, self.nhead, self.dim_feedforward, self.dropout_num,
                self.activation1, self.layernorm_eps, self.batch_first, self.norm_first)


class TransformerEncoderLayer(_Block):
    r"""Self-attention then a feed-forward block, each with a residual and a LayerNorm
    (after, or before with ``norm_first``).

    Args:
        d_model (int), nhead (int), dim_feedforward (int): Default ``2048``,
        dropout (float): Default ``0.1``, activation: ``'relu'`` (default), ``'gelu'``,
        nn.ReLU/nn.GELU or ops.relu/ops.gelu, layer_norm_eps (float): Default ``1e-5``,
        batch_first (bool): Default ``False``, norm_first (bool): Default ``False``, dtype.

    Inputs: src, src_mask=None, src_key_padding_mask=None.
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype=float32):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        self._init_common(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                          batch_first, norm_first, dtype)
        self.norm1 = self._norm()
        self.norm2 = self._norm()
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        _check_padding_mask(src_key_padding_mask)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            return x + self._ff_block(self.norm2(x), self.dropout2)
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
        return self.norm2(x + self._ff_block(x, self.dropout2))

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False)[0]
        return self.dropout1(x)


class TransformerDecoderLayer(_Block):
    r"""Self-attention, cross-attention over ``memory``, then a feed-forward block, each with
    a residual and a LayerNorm.

    Args: as TransformerEncoderLayer.

    Inputs: tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None.
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype=float32):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, dtype=dtype)
        self._init_common(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                          batch_first, norm_first, dtype)
        self.norm1 = self._norm()
        self.norm2 = self._norm()
        self.norm3 = self._norm()
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.dropout3 = Dropout(p=dropout)

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            return x + self._ff_block(self.norm3(x), self.dropout3)
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
        return self.norm3(x + self._ff_block(x, self.dropout3))

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, memory, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, memory, memory, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout2(x)


class TransformerEncoder(Cell):
    """``num_layers`` copies of a layer configured like ``encoder_layer`` (MindSpore builds a
    fresh layer with its hyper-parameters and deep-copies it, so all copies start equal),
    then ``norm``.

    Args:
        encoder_layer (TransformerEncoderLayer), num_layers (int), norm (Cell): Default ``None``.
    """

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        layer = TransformerEncoderLayer(*encoder_layer._hyper(), dtype=encoder_layer.dtype)
        self.layers = CellList([copy.deepcopy(layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        _check_padding_mask(src_key_padding_mask)
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return out if self.norm is None else self.norm(out)


class TransformerDecoder(Cell):
    """``num_layers`` copies of a layer configured like ``decoder_layer``, then ``norm``.

    Args:
        decoder_layer (TransformerDecoderLayer), num_layers (int), norm (Cell): Default ``None``.
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        layer = TransformerDecoderLayer(*decoder_layer._hyper(), dtype=decoder_layer.dtype)
        self.layers = CellList([copy.deepcopy(layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask)
        return out if self.norm is None else self.norm(out)


class Transformer(Cell):
    """Encoder-decoder Transformer; every parameter with more than one dimension is
    re-initialised XavierUniform, as MindSpore does.

    Args:
        d_model (int): Default ``512``; nhead (int): ``8``; num_encoder_layers (int): ``6``;
        num_decoder_layers (int): ``6``; dim_feedforward (int): ``2048``; dropout (float):
        ``0.1``; activation: ``'relu'``; custom_encoder, custom_decoder (Cell): ``None``;
        layer_norm_eps (float): ``1e-5``; batch_first (bool): ``False``; norm_first (bool):
        ``False``; dtype.

    Inputs: src, tgt, src_mask, tgt_mask, memory_mask, src_key_padding_mask,
    tgt_key_padding_mask, memory_key_padding_mask (all masks Default ``None``).
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 dtype=float32):
        super().__init__()
        hyper = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                 batch_first, norm_first)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(TransformerEncoderLayer(*hyper, dtype=dtype),
                                              num_encoder_layers,
                                              LayerNorm((d_model,), epsilon=layer_norm_eps,
                                                        dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(*hyper, dtype=dtype),
                                              num_decoder_layers,
                                              LayerNorm((d_model,), epsilon=layer_norm_eps,
                                                        dtype=dtype))
        for _, p in self.parameters_and_names():
            if p.ndim > 1:
                p.set_data(initializer("xavier_uniform", p.shape, p.dtype))
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                  src_key_padding_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        if src.ndim == 3:
            axis = 0 if self.batch_first else 1
            if src.shape[axis] != tgt.shape[axis]:
                raise ValueError("The number of batch size for 'src' and 'tgt' must be equal.")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError("The number of features for 'src' and 'tgt' must be equal to "
                             "`d_model`.")
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)
