"""nn.SampledSoftmaxLoss: softmax cross-entropy over the true classes and a uniform sample
of the others (Jean et al. 2014), for training with very many classes."""
from __future__ import annotations

from ... import ops
from ..._dtype import int32
from ..._tensor import Tensor
from .loss import LossBase

__all__ = ["SampledSoftmaxLoss"]


class SampledSoftmaxLoss(LossBase):
    r"""Sampled softmax loss. For each example the logits of its ``num_true`` true classes
    and of ``num_sampled`` classes drawn uniformly without replacement (shared by the batch,
    ``ops.UniformCandidateSampler``; never a true class with ``remove_accidental_hits``)
    are ``inputs @ weights[class] + biases[class] - log(expected count)``; the loss is the
    cross-entropy of their softmax against targets ``1 / num_true`` on the true classes.

    Args:
        num_sampled (int), num_classes (int), num_true (int): Default ``1``.
        sampled_values (tuple): ``(sampled_candidates, true_expected_count,
            sampled_expected_count)`` to use instead of sampling. Default: ``None``.
        remove_accidental_hits (bool): Default: ``True``. seed (int): Default: ``0``.
        reduction (str): accepted and checked; as MindSpore, the per-example losses are
            returned unreduced. Default: ``'none'``.

    Inputs: ``weights`` (C, dim), ``biases`` (C,), ``labels`` (N, num_true) integers,
    ``logits`` (N, dim). Output: (N,).
    """

    def __init__(self, num_sampled, num_classes, num_true=1, sampled_values=None,
                 remove_accidental_hits=True, seed=0, reduction="none"):
        super().__init__(reduction)
        name = self.cls_name
        if num_true < 1:
            raise ValueError(f"For '{name}', the 'num_true' must be greater than or equal to 1, "
                             f"but got {num_true}.")
        if seed < 0:
            raise ValueError(f"For '{name}', the 'seed' must be greater than or equal to 0, but "
                             f"got {seed}.")
        if num_sampled > num_classes:
            raise ValueError(f"For '{name}', the 'num_sampled' must be smaller than or equal to "
                             f"'num_classes', but got 'num_sampled': {num_sampled} and "
                             f"'num_classes': {num_classes}.")
        if num_true > num_classes:
            raise ValueError(f"For '{name}', the 'num_true' must be smaller than or equal to "
                             f"'num_classes', but got 'num_true': {num_true} and 'num_classes': "
                             f"{num_classes}.")
        if sampled_values is not None:
            if not isinstance(sampled_values, (list, tuple)):
                raise TypeError(f"For '{name}', the type of 'sampled_values' must be a list or "
                                f"tuple, but got {type(sampled_values).__name__}.")
            if len(sampled_values) != 3:
                raise ValueError(f"For '{name}', the length of 'sampled_values' must be equal "
                                 f"to 3, but got {len(sampled_values)}.")
        self.num_sampled, self.num_classes, self.num_true = num_sampled, num_classes, num_true
        self.sampled_values = sampled_values
        self.remove_accidental_hits, self.seed = remove_accidental_hits, seed
        self.sampler = ops.UniformCandidateSampler(num_true, num_sampled, True, num_classes, seed,
                                                   remove_accidental_hits)

    def construct(self, weights, biases, labels, logits):
        name = self.cls_name
        for arg, v in (("weights", weights), ("biases", biases), ("labels", labels),
                       ("logits", logits)):
            if not isinstance(v, Tensor):
                raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got "
                                f"{type(v).__name__}.")
        if labels.dtype.is_floating_point or labels.dtype.is_complex:
            raise TypeError(f"For '{name}', the 'labels' must be an integer Tensor, but got "
                            f"{labels.dtype}.")
        out_logits, targets = self._sampled_logits(weights, biases, labels, logits)
        shifted = out_logits - ops.amax(out_logits, 1, True)
        pred = ops.exp(shifted) / ops.sum(ops.exp(shifted), 1, True)
        return -ops.sum(targets * ops.log(pred + 1.0e-20), 1)

    def _sampled_logits(self, weights, biases, labels, logits):
        """``(logits, targets)`` of shape (N, num_true + num_sampled): the true classes'
        logits first, each less the log of its expected count in the sample."""
        k = self.num_true
        labels = labels.astype(int32).reshape((-1, k))
        sampled, true_expected, sampled_expected = (
            self.sampled_values if self.sampled_values is not None else self.sampler(labels))
        sampled = sampled.astype(int32)
        dim = weights.shape[1]
        true_w = ops.gather(weights, labels.reshape(-1), 0).reshape((-1, k, dim))
        true_logits = ops.sum(logits.expand_dims(1) * true_w, 2) + \
            ops.gather(biases, labels.reshape(-1), 0).reshape((-1, k))
        sampled_logits = ops.matmul(logits, ops.gather(weights, sampled, 0).swapaxes(0, 1)) + \
            ops.gather(biases, sampled, 0)
        true_logits = true_logits - ops.log(true_expected)
        sampled_logits = sampled_logits - ops.log(sampled_expected)
        out = ops.cat((true_logits, sampled_logits), 1)
        targets = ops.cat((ops.ones_like(true_logits) / k, ops.zeros_like(sampled_logits)), 1)
        return out, targets
