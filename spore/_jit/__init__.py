"""Graph mode: capture (``capture``), IR (``ir``), passes (``passes``), codegen
(``codegen``), IR dumps (``dump``) and the ``jit`` API (``api``).

Layering: ``_core``, ``_prims`` and ``_autodiff`` never import this package; passes
never import codegen.
"""
from .api import (CompileError as CompileError, JitFunction as JitFunction,
                  JitReport as JitReport, jit as jit, jit_report as jit_report,
                  run_cell as run_cell)
from .capture import GraphBreak as GraphBreak
