"""Neural-network primitives: softmax, convolution, pooling, layer and batch norm, NLL,
dropout, embedding lookup.

Only ops whose fused kernels matter for speed or numerics are primitives, each
with fused gradient primitives where the backward pass is hot; everything else
in the nn functional family is composed from primitives in ``spore/ops/_nn``.
"""
from .conv import conv2d_filter_grad_p, conv2d_input_grad_p, conv2d_p
from .dropout import dropout_p
from .embedding import embedding_grad_p, embedding_lookup_p
from .loss import nll_loss_grad_p, nll_loss_p
from .norm import batch_norm_grad_p, batch_norm_p, layer_norm_grad_p, layer_norm_p
from .pool import (avg_pool2d_grad_p, avg_pool2d_p, max_pool2d_p, max_pool_scatter_p,
                   max_pool_select_p)
from .softmax import log_softmax_grad_p, log_softmax_p, softmax_grad_p, softmax_p

__all__ = ["conv2d_p", "conv2d_input_grad_p", "conv2d_filter_grad_p", "dropout_p",
           "embedding_lookup_p", "embedding_grad_p", "nll_loss_p", "nll_loss_grad_p",
           "layer_norm_p", "layer_norm_grad_p", "batch_norm_p", "batch_norm_grad_p", "max_pool2d_p", "max_pool_scatter_p",
           "max_pool_select_p", "avg_pool2d_p", "avg_pool2d_grad_p", "softmax_p",
           "log_softmax_p", "softmax_grad_p", "log_softmax_grad_p"]
