"""The ``spore`` command: ``spore run SCRIPT [ARGS...]`` runs a MindSpore script on Spore."""
from __future__ import annotations

import argparse
import os
import runpy
import sys


def _run(script, args):
    from . import _alias
    if not os.path.isfile(script):
        sys.stderr.write(f"spore run: no such file: {script}\n")
        return 2
    _alias.install()
    sys.argv = [script] + list(args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="spore", description="Spore: MindSpore's programming model on NumPy.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run an unmodified MindSpore script on Spore "
                                     "(`import mindspore` resolves to spore)")
    run.add_argument("script")
    run.add_argument("args", nargs=argparse.REMAINDER)
    sub.add_parser("version", help="print Spore's version")
    ns = parser.parse_args(argv)
    if ns.command == "version":
        from . import __version__
        print(__version__)
        return 0
    return _run(ns.script, ns.args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
