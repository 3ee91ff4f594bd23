"""NumPy's RuntimeWarnings from inside Spore's kernels are not shown, as MindSpore shows none.

NOTE: [Quiet kernels]
``log(0)``, ``0/0``, the mean of an empty axis, ``cumsum([inf, -inf])`` or ``det`` of
NaN are not errors in MindSpore: the result is inf/nan and nothing is printed. NumPy
prints a RuntimeWarning for each. Two ways to silence it were rejected:

* ``np.errstate`` around each kernel costs about as much as the ``z + y`` kernel of
  W0 (~1.5-5 µs here), and it does not silence the warnings NumPy raises itself with
  ``warnings.warn`` ("Mean of empty slice", "Degrees of freedom <= 0");
* ``np.seterr(all="ignore")`` once (per thread) changes NumPy for the user's own code.

Instead one entry of Python's warning filter list ignores RuntimeWarnings *raised for
Spore*: attributed to a ``spore`` module, or raised inside NumPy / SciPy / ml_dtypes
when the nearest caller outside those libraries is Spore. The filter's module "regex"
is an object whose ``match`` looks at the stack; Python calls ``match`` only when a
warning is raised, so the hot path pays nothing, NumPy's error state is never
changed, and any thread is covered (dataset workers, thread pools). The user's own
NumPy calls, and user code that Spore calls (a dataset source, a ``construct``), warn
as before. ``ignore`` leaves no trace in ``__warningregistry__``, so a later identical
warning from the user's code still shows. To see the hidden warnings, add a filter
after ``import spore`` (``warnings.simplefilter("default", RuntimeWarning)``): newer
filters come first.
"""
from __future__ import annotations

import sys
import warnings

_LIBRARIES = ("numpy", "scipy", "ml_dtypes", "warnings")


def _is_spore(module):
    return module == "spore" or module.startswith("spore.")


class _RaisedForSpore:
    """The module "regex" of the filter entry (see NOTE: [Quiet kernels])."""

    def match(self, module):
        try:
            if _is_spore(module):
                return True
            if not module.startswith(_LIBRARIES):
                return False
            return _is_spore(_first_caller_outside_libraries())
        except Exception:   # noqa: BLE001 - a filter must never raise into a kernel
            return False

    def __repr__(self):
        return "<raised for spore>"


def _first_caller_outside_libraries():
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__") or ""
        if not (name.partition(".")[0] in _LIBRARIES):
            return name
        frame = frame.f_back
    return ""


def install():
    """Put the filter first in Python's warning filters (idempotent)."""
    for entry in warnings.filters:
        if isinstance(entry[3], _RaisedForSpore):
            return
    # filterwarnings inserts the entry and resets the "already shown" registries;
    # the entry's regex is then swapped for the stack-aware matcher.
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"spore(\.|$)")
    action, message, category, _, lineno = warnings.filters[0]
    warnings.filters[0] = (action, message, category, _RaisedForSpore(), lineno)
