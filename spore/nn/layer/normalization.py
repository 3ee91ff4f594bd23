"""Normalisation layers: BatchNorm1d/2d/3d, LayerNorm, GroupNorm.

BatchNorm's ``momentum`` is MindSpore's: the weight of the *old* moving value
(moving = momentum·moving + (1−momentum)·batch); the functional ``ops.batch_norm``
takes the weight of the new value, so the layer passes ``1 − momentum`` (and keeps it
as ``self.momentum``, as MindSpore does). Moving statistics are Parameters with
``requires_grad=False`` named ``mean``/``variance`` (so ``bn.moving_mean`` inside a parent).
"""
from __future__ import annotations

from ... import _context
from ... import ops
from ..._dtype import float32
from ..._parameter import Parameter
from ...common.initializer import initializer
from ..cell import Cell
from . import _checks as C

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "InstanceNorm1d",
           "InstanceNorm2d", "InstanceNorm3d"]


class _BatchNorm(Cell):
    """Batch normalisation over the channel axis 1 (see the module note)."""

    _ranks = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=float32):
        super().__init__()
        owner = type(self).__name__
        if isinstance(num_features, bool) or not isinstance(num_features, int):
            raise TypeError(f"For '{owner}', the type of 'num_features' should be 'int', but got "
                            f"type '{type(num_features).__name__}'.")
        if num_features < 1:
            raise ValueError(f"For '{owner}', the 'num_features' must be at least 1, but got "
                             f"{num_features}.")
        if momentum < 0 or momentum > 1:
            raise ValueError(f"For '{owner}', the 'momentum' must be a number in range [0, 1], "
                             f"but got {momentum}.")
        _check_format(data_format, owner)
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise ValueError(f"For '{owner}', the 'use_batch_statistics' must be a boolean value "
                             f"or None, but got {use_batch_statistics}.")
        self.num_features = num_features
        self.eps = eps
        self.momentum = 1.0 - momentum
        self.use_batch_statistics = use_batch_statistics
        self.format = data_format
        self.moving_mean = Parameter(initializer(moving_mean_init, num_features, dtype=dtype),
                                     name="mean", requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, num_features, dtype=dtype),
                                         name="variance", requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, num_features, dtype=dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, num_features, dtype=dtype), name="beta",
                              requires_grad=affine)

    def _check_input(self, x):
        if x.ndim not in self._ranks:
            raise ValueError(self._rank_message(x.ndim))

    def construct(self, x):
        self._check_input(x)
        use_batch = self.training if self.use_batch_statistics is None \
            else self.use_batch_statistics
        stats_dtype = self.moving_mean.dtype
        if x.dtype == stats_dtype:
            return ops.batch_norm(x, self.moving_mean, self.moving_variance, self.gamma,
                                  self.beta, use_batch, self.momentum, self.eps)
        # another compute dtype (to_float): normalise in the statistics' dtype, so the
        # moving statistics are updated in place, and return the compute dtype
        y = ops.batch_norm(ops.cast(x, stats_dtype), self.moving_mean, self.moving_variance,
                           self.gamma, self.beta, use_batch, self.momentum, self.eps)
        return ops.cast(y, x.dtype)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, "
                f"momentum={1.0 - self.momentum}, gamma={self.gamma}, beta={self.beta}, "
                f"moving_mean={self.moving_mean}, moving_variance={self.moving_variance}")


def _check_format(data_format, owner):
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"For '{owner}', the 'format' must be str and must be in "
                         f"'['NCHW', 'NHWC']', but got '{data_format}'.")
    if data_format == "NHWC":
        raise ValueError(f"For '{owner}', the 'NHWC' format only support in GPU target, but got "
                         f"device target {_context.get_context('device_target')}.")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs.

    Args:
        num_features (int): C.
        eps (float): Default: ``1e-5``.
        momentum (float): weight of the old moving statistics. Default: ``0.9``.
        affine (bool): whether gamma/beta are trained. Default: ``True``.
        gamma_init, beta_init, moving_mean_init, moving_var_init: initializers.
        use_batch_statistics (bool, None): None = batch statistics while training, moving
            ones otherwise; True/False force one of them. Default: ``None``.
    """

    _ranks = (2, 3)

    def _rank_message(self, ndim):
        return f"For 'BatchNorm1d', the must have 2 dims or 3 dims, but got {ndim}."


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) inputs (arguments as BatchNorm1d)."""

    _ranks = (4,)

    def _rank_message(self, ndim):
        return f"For 'BatchNorm2d', the in_shape must have 4 dims, but got {ndim}."


class BatchNorm3d(Cell):
    """Batch normalisation of (N, C, D, H, W) inputs (arguments as BatchNorm1d).

    As in MindSpore, a BatchNorm2d child ``bn2d`` runs on (N, C, D*H, W), so the
    parameters are named ``bn2d.gamma``, ``bn2d.moving_mean``, ... (checkpoints move
    between the two frameworks).
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, dtype=float32):
        super().__init__()
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init,
                                moving_mean_init, moving_var_init, use_batch_statistics,
                                dtype=dtype)

    def construct(self, x):
        if x.ndim != 5:
            raise ValueError(f"For 'BatchNorm3d', the in_shape must have 5 dims, but got "
                             f"{x.ndim}.")
        n, c, d, h, w = x.shape
        return self.bn2d(x.reshape(n, c, d * h, w)).reshape(x.shape)


class LayerNorm(Cell):
    r"""Layer normalisation over the axes from ``begin_norm_axis`` on, with gamma/beta of
    shape ``normalized_shape`` applied from ``begin_params_axis`` on.

    Args:
        normalized_shape (tuple, list): shape of gamma and beta.
        begin_norm_axis (int): first normalised axis. Default: ``-1``.
        begin_params_axis (int): first axis gamma/beta cover. Default: ``-1``.
        gamma_init, beta_init: Default: ``'ones'``, ``'zeros'``.
        epsilon (float): Default: ``1e-7`` (not 1e-5).
        dtype: Default: ``mstype.float32``.
    """

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
                 gamma_init="ones", beta_init="zeros", epsilon=1e-7, dtype=float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"For 'LayerNorm', the type of 'normalized_shape' must be tuple[int] "
                            f"or list[int], but got {normalized_shape} and the type is "
                            f"{type(normalized_shape)}.")
        if not normalized_shape:
            raise ValueError("For 'LayerNorm', normalized_shape must be non-empty.")
        for arg, v in (("begin_norm_axis", begin_norm_axis),
                       ("begin_params_axis", begin_params_axis)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'LayerNorm', the type of '{arg}' should be 'int', but got "
                                f"type '{type(v).__name__}'.")
        self.normalized_shape = normalized_shape
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = epsilon
        self.gamma = Parameter(initializer(gamma_init, normalized_shape, dtype=dtype),
                               name="gamma")
        self.beta = Parameter(initializer(beta_init, normalized_shape, dtype=dtype), name="beta")

    def construct(self, x):
        norm_axis = _axis(self.begin_norm_axis, x.ndim, "begin_norm_axis")
        params_axis = _axis(self.begin_params_axis, x.ndim, "begin_params_axis")
        gamma, beta = self._cast_weight(self.gamma), self._cast_weight(self.beta)
        if tuple(x.shape[params_axis:]) != tuple(gamma.shape):
            raise ValueError(f"For 'LayerNorm', gamma or beta shape must match input shape, but "
                             f"got input shape: {tuple(x.shape)}, gamma shape: "
                             f"{tuple(gamma.shape)}, beta shape: {tuple(beta.shape)}.")
        norm_shape = tuple(x.shape[norm_axis:])
        if norm_axis == params_axis:
            return ops.layer_norm(x, norm_shape, gamma, beta, self.epsilon)
        return ops.layer_norm(x, norm_shape, None, None, self.epsilon) * gamma + beta

    def extend_repr(self):
        # "gamma" without "=" is MindSpore 2.10's text, kept for identical output
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis="
                f"{self.begin_norm_axis}, begin_params_axis={self.begin_params_axis}, "
                f"gamma{self.gamma}, beta={self.beta}")


def _axis(axis, ndim, arg):
    if not -ndim <= axis < ndim:
        raise ValueError(f"For 'LayerNorm', the '{arg}' must be in range [{-ndim}, {ndim}), but "
                         f"got {axis}.")
    return axis % ndim


class GroupNorm(Cell):
    """Group normalisation: channels (axis 1) split into ``num_groups`` groups, each group
    normalised over its channels and spatial positions.

    Args:
        num_groups (int), num_channels (int): ``num_channels % num_groups == 0``.
        eps (float): Default: ``1e-5``.
        affine (bool): train gamma/beta. Default: ``True``.
        gamma_init, beta_init: Default: ``'ones'``, ``'zeros'``.
        dtype: Default: ``mstype.float32``.
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=float32):
        super().__init__()
        self.num_groups = C.positive_int(num_groups, "num_groups", "GroupNorm")
        self.num_channels = C.positive_int(num_channels, "num_channels", "GroupNorm")
        if num_channels % num_groups:
            raise ValueError(f"For 'GroupNorm', the 'num_channels' must be divided by "
                             f"'num_groups', but got 'num_channels': {num_channels}, "
                             f"'num_groups': {num_groups}.")
        self.eps = eps
        self.affine = C.boolean(affine, "affine", "GroupNorm")
        self.gamma = Parameter(initializer(gamma_init, num_channels, dtype=dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, num_channels, dtype=dtype), name="beta",
                              requires_grad=affine)

    def construct(self, x):
        if x.ndim < 2 or x.shape[1] != self.num_channels:
            raise ValueError(f"For 'GroupNorm', the channel dimension (axis 1) of the input must be "
                             f"'num_channels' = {self.num_channels}, but got shape "
                             f"{tuple(x.shape)}.")
        return ops.group_norm(x, self.num_groups, self._cast_weight(self.gamma),
                              self._cast_weight(self.beta), self.eps)

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


class _InstanceNorm(Cell):
    r"""Normalisation of each sample's channel over its own spatial axes, in training and
    evaluation alike: :math:`y = \gamma (x - E[x]) / \sqrt{Var[x] + \epsilon} + \beta`
    (biased variance).

    The running statistics ``mean`` / ``variance`` (``moving_mean``, ``moving_variance``)
    are kept as non-trainable Parameters for checkpoint compatibility; the output never
    reads them, and Spore does not update them.
    """

    _ndim = 4

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=float32):
        super().__init__()
        owner = type(self).__name__
        for arg, value, kind in (("num_features", num_features, int), ("eps", eps, float),
                                 ("momentum", momentum, float), ("affine", affine, bool)):
            if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
                raise TypeError(f"For '{owner}', the type of '{arg}' should be "
                                f"'{kind.__name__}', but got type '{type(value).__name__}'.")
        if num_features < 1:
            raise ValueError(f"For '{owner}', the 'num_features' must be at least 1, but got "
                             f"{num_features}.")
        if not 0 <= momentum <= 1:
            raise ValueError(f"For '{owner}', the 'momentum' must be a number in range [0, 1], "
                             f"but got {momentum}.")
        self.num_features, self.eps, self.momentum, self.affine = num_features, eps, momentum, \
            affine
        self.moving_mean = Parameter(initializer("zeros", num_features, dtype=dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer("ones", num_features, dtype=dtype),
                                         name="variance", requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, num_features, dtype=dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, num_features, dtype=dtype), name="beta",
                              requires_grad=affine)

    def construct(self, x):
        owner = type(self).__name__
        if x.ndim != self._ndim:
            raise ValueError(f"For '{owner}', the in_shape must have {self._ndim} dims, but got "
                             f"{x.ndim}.")
        if x.shape[1] != self.num_features:
            raise ValueError(f"For '{owner}', the channel dimension of the input ({x.shape[1]}) "
                             f"must equal 'num_features' ({self.num_features}).")
        axes = tuple(range(2, x.ndim))
        mean = ops.mean(x, axes, keep_dims=True)
        centred = x - mean
        var = ops.mean(centred * centred, axes, keep_dims=True)
        shape = (1, -1) + (1,) * (x.ndim - 2)
        y = centred / ops.sqrt(var + self.eps)
        return y * ops.reshape(self.gamma, shape) + ops.reshape(self.beta, shape)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
                f"moving_variance={self.moving_variance}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) inputs (see ``_InstanceNorm``)."""
    _ndim = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) inputs (see ``_InstanceNorm``)."""
    _ndim = 4


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) inputs (see ``_InstanceNorm``)."""
    _ndim = 5
