"""``TensorOperation``: the base of Spore's transforms.

A transform is a small object with ``_run(arrays, rand) -> tuple of arrays``.
Called directly (``op(image)``) it runs eagerly on NumPy arrays, Tensors or PIL
images and returns an array (a tuple for several outputs); inside ``map`` the
pipeline calls ``_run`` with the row's random source, so random transforms are
reproducible under ``dataset.config.set_seed`` whatever the number of workers.
"""
from __future__ import annotations

from ..engine.randomness import EAGER
from ..engine.serialize import remember_arguments
from ..engine.rows import to_array, to_value


class TensorOperation:
    """Base of the built-in transforms."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        remember_arguments(cls)  # serialize() writes a transform as its constructor call

    random = False  # whether the transform draws random numbers

    def __call__(self, *inputs):
        if not inputs:
            raise TypeError(f"For '{type(self).__name__}', at least one input is required.")
        arrays = tuple(_eager_input(self, x) for x in inputs)
        out = self._run(arrays, EAGER)
        return out[0] if len(out) == 1 else out

    def _run(self, arrays, rand):
        raise NotImplementedError

    def _error(self, message, kind=ValueError):
        return kind(f"For '{type(self).__name__}', {message}")


class UnaryOperation(TensorOperation):
    """A transform of one array to one array."""

    def _run(self, arrays, rand):
        if len(arrays) != 1:
            raise self._error(f"expected 1 input column, but got {len(arrays)}.", TypeError)
        return (self._apply(arrays[0], rand),)

    def _apply(self, array, rand):
        raise NotImplementedError


def _eager_input(op, value):
    try:
        return to_array(value)
    except (TypeError, ValueError) as exc:
        raise op._error(f"the input must be a NumPy array, Tensor, PIL image or number: {exc}",
                        TypeError) from None


def run_operation(op, arrays, rand):
    """Apply a built-in transform or a plain Python callable to a tuple of column values
    (a Python callable may take and return dicts)."""
    if hasattr(op, "_run"):
        return op._run(arrays, rand)
    out = op(*arrays)
    return tuple(to_value(v) for v in out) if isinstance(out, tuple) else (to_value(out),)


def check_operations(name, transforms):
    if not isinstance(transforms, (list, tuple)) or not transforms or \
            not all(callable(t) for t in transforms):
        raise TypeError(f"For '{name}', 'transforms' must be a non-empty list of callables, "
                        f"but got {transforms!r}.")
    return list(transforms)
