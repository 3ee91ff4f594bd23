"""Make ``import mindspore`` (and every ``mindspore.xxx``) resolve to Spore.

An import hook, not files named mindspore: ``mindspore.nn`` *is* ``spore.nn``
(the same module object), so isinstance checks and module state are shared.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

ALIAS = "mindspore"
TARGET = "spore"


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target_name):
        self.target_name = target_name

    def create_module(self, spec):
        return importlib.import_module(self.target_name)

    def exec_module(self, module):
        """The target module is already executed by its own import."""


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        target_name = TARGET + fullname[len(ALIAS):]
        if importlib.util.find_spec(target_name) is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(target_name),
                                               is_package=True)


_finder = _AliasFinder()


def install():
    """Install the ``mindspore`` alias (idempotent)."""
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def uninstall():
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [n for n in sys.modules if n == ALIAS or n.startswith(ALIAS + ".")]:
        del sys.modules[name]
