"""Language-model and translation metrics: ``Perplexity`` and ``BleuScore``."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from .metric import Metric, check_input_count, rearrange_inputs


class Perplexity(Metric):
    """exp of the mean negative log-probability of the labels: ``update(probs, labels)``
    with probabilities (..., C) and integer labels (...); labels equal to
    ``ignore_label`` are left out. Probabilities below 1e-10 count as 1e-10.

    Args:
        ignore_label (int): a label to skip. Default: ``None``.
    """

    def __init__(self, ignore_label=None):
        super().__init__()
        if ignore_label is not None and (isinstance(ignore_label, bool)
                                         or not isinstance(ignore_label, int)):
            raise TypeError(f"For 'Perplexity', the type of 'ignore_label' should be 'int', but "
                            f"got '{type(ignore_label).__name__}'.")
        self.ignore_label = ignore_label
        self.clear()

    def clear(self):
        self._sum_metric = 0.0
        self._num_inst = 0

    @rearrange_inputs
    def update(self, *inputs):
        check_input_count("Perplexity", inputs, 2, "(predicted value, label)")
        pred, label = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if label.size != pred.size / pred.shape[-1]:
            raise RuntimeError(f"For 'Perplexity.update', predicted value (input[0]) and label "
                               f"(input[1]) should have the same shape, but got predicted value "
                               f"shape {pred.shape}, label shape {label.shape}.")
        label = label.reshape(-1)
        picked = pred.reshape(-1, pred.shape[-1])[np.arange(label.size), label.astype(int)]
        count = picked.size
        if self.ignore_label is not None:
            ignored = label == self.ignore_label
            count -= int(ignored.sum())
            picked = np.where(ignored, 1, picked)
        self._sum_metric -= float(np.sum(np.log(np.maximum(1e-10, picked))))
        self._num_inst += count

    def eval(self):
        if self._num_inst == 0:
            raise RuntimeError("The 'Perplexity' can not be calculated, because the number of "
                               "samples is 0, please check whether the update method has been "
                               "called before calling eval method.")
        return math.exp(self._sum_metric / self._num_inst)


def _ngrams(tokens, n_max):
    """Counts of every n-gram of ``tokens`` for n = 1 .. n_max."""
    return Counter(tuple(tokens[i:i + n]) for n in range(1, n_max + 1)
                   for i in range(len(tokens) - n + 1))


class BleuScore(Metric):
    """Corpus BLEU: clipped n-gram precisions (n = 1 .. ``n_gram``) combined by their
    geometric mean, times the brevity penalty ``exp(1 - r / c)`` when the candidates are
    not longer than the closest reference lengths. ``update(candidates, references)``
    takes token lists and, per candidate, a list of reference token lists.

    Args:
        n_gram (int): 1 to 4. Default: ``4``.
        smooth (bool): add 1 to each precision's numerator and denominator. Default:
            ``False``.

    Examples:
        >>> from spore.train import BleuScore
        >>> metric = BleuScore()
        >>> metric.update([["the", "cat", "sat", "on", "the", "mat"]],
        ...               [[["the", "cat", "sat", "on", "the", "mat"]]])
        >>> float(metric.eval())
        1.0
    """

    def __init__(self, n_gram=4, smooth=False):
        super().__init__()
        if isinstance(n_gram, bool) or not isinstance(n_gram, int):
            raise TypeError(f"For 'BleuScore', the type of 'n_gram' should be 'int', but got "
                            f"'{type(n_gram).__name__}'.")
        if not 1 <= n_gram <= 4:
            raise ValueError(f"For 'BleuScore', the argument 'n_gram' should range from 1 to 4, "
                             f"but got {n_gram}.")
        if not isinstance(smooth, bool):
            raise TypeError(f"For 'BleuScore', the type of 'smooth' should be 'bool', but got "
                            f"'{type(smooth).__name__}'.")
        self.n_gram, self.smooth = n_gram, smooth
        self.clear()

    def clear(self):
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._c = 0.0
        self._r = 0.0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        check_input_count("BleuScore", inputs, 2, "(candidate_corpus, reference_corpus)")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError(f"For 'BleuScore.update', 'translate_corpus' (inputs[0]) and "
                             f"'reference_corpus' (inputs[1]) should be equal in length, but got "
                             f"{len(candidates)}, {len(references)}")
        for candidate, refs in zip(candidates, references):
            self._c += len(candidate)
            lengths = [len(ref) for ref in refs]
            self._r += min(lengths, key=lambda n: abs(len(candidate) - n))
            counts = _ngrams(candidate, self.n_gram)
            best = Counter()
            for ref in refs:
                best |= _ngrams(ref, self.n_gram)
            for gram, k in (counts & best).items():
                self._numerator[len(gram) - 1] += k
            for gram, k in counts.items():
                self._denominator[len(gram) - 1] += k
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        if min(self._numerator) == 0.0:
            return np.array(0.0)
        extra = 1.0 if self.smooth else 0.0
        precisions = (self._numerator + extra) / (self._denominator + extra)
        geometric_mean = np.exp(np.sum(np.log(precisions) / self.n_gram))
        penalty = np.array(1.0) if self._c > self._r else np.exp(1 - self._r / self._c)
        return penalty * geometric_mean
