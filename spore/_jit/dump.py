"""``save_graphs``: one readable IR file per pass per graph, and a ``.dot`` of the result.

``set_context(save_graphs=True or 1..3, save_graphs_path=DIR)`` (or MindSpore's
environment variables ``MS_DEV_SAVE_GRAPHS`` / ``MS_DEV_SAVE_GRAPHS_PATH``) turns it on.
Files are numbered in pipeline order: ``00_capture_<graph>.ir``, ``01_fold_constants_...``,
..., and ``<graph>.dot``.
"""
from __future__ import annotations

import itertools
import os

from .. import _context as C
from .ir import format_dot, format_graph

_graph_serial = itertools.count()


def _setting():
    level = C._context.get("save_graphs", 0)
    path = C._context.get("save_graphs_path", ".") or "."
    env = os.environ.get("MS_DEV_SAVE_GRAPHS")
    if not level and env not in (None, "", "0"):
        level = env
        path = os.environ.get("MS_DEV_SAVE_GRAPHS_PATH", path)
    return level, path


class Dumper:
    def __init__(self, name, path):
        self.name = f"{name}_{next(_graph_serial)}"
        self.path = path
        self.step = 0
        os.makedirs(path, exist_ok=True)

    @classmethod
    def from_context(cls, name):
        level, path = _setting()
        if not level:
            return None
        return cls(name, path)

    def __call__(self, pass_name, graph):
        fname = os.path.join(self.path, f"{self.step:02d}_{pass_name}_{self.name}.ir")
        self.step += 1
        with open(fname, "w", encoding="utf-8") as f:
            f.write(f"# IR after {pass_name}: {len(graph.nodes)} nodes\n")
            f.write(format_graph(graph) + "\n")

    def final(self, graph):
        with open(os.path.join(self.path, f"{self.name}.dot"), "w", encoding="utf-8") as f:
            f.write(format_dot(graph) + "\n")
