"""The user documentation stays true: docs/ops.md matches the live registry, every
```python example in docs/*.md runs, and links between pages resolve.

Examples run page by page in a fresh interpreter (one per page, in a temporary
directory), so a page's blocks share names like a notebook and cannot disturb
the rest of the suite. A block fenced as ```python no-run is shown, not run.
"""
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
FENCE = re.compile(r"^```(\S*)([^\n]*)\n(.*?)^```\s*$", re.S | re.M)

# Runs one page's blocks in order; each block is compiled with the page's path and
# line numbers, so a failure's traceback points at the line in the .md file.
RUNNER = r"""
import json
import sys
page, blocks = sys.argv[1], json.load(sys.stdin)
namespace = {"__name__": "__main__"}
for line, source in blocks:
    exec(compile("\n" * (line - 1) + source, page, "exec"), namespace)
"""


def python_blocks(text):
    """(first line number, source) of each ```python block that is meant to run."""
    blocks = []
    for m in FENCE.finditer(text):
        lang, rest, body = m.group(1), m.group(2).split(), m.group(3)
        if lang == "python" and "no-run" not in rest:
            blocks.append((text.count("\n", 0, m.start(3)) + 1, body))
    return blocks


def test_ops_page_matches_the_registry():
    proc = subprocess.run([sys.executable, "tools/gen_ops_doc.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (
        f"{proc.stdout}{proc.stderr}\ndocs/ops.md is stale: run `python tools/gen_ops_doc.py` "
        "from the repository root and commit docs/ops.md.")


def _generator():
    spec = importlib.util.spec_from_file_location("gen_ops_doc", ROOT / "tools" / "gen_ops_doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generator_reads_what_code_refers_to():
    import spore
    from spore import ops
    from spore._core.primitive import Primitive
    from spore._prims import math as M
    gen = _generator()
    ns = gen.Namespace(ops)
    reader = gen.Reader(ns, ops, spore.Tensor, Primitive)

    def adapter(x):
        return M.exp_p(x)

    def composite(x):
        return M.mul_p(M.log_p(x), 2.0) * x            # the operator is not followed

    class Forwarder:
        def __call__(self, x):
            return _ops_module().softmax(x, -1)        # a method on an unknown value

    def forward(name):
        def method(x):
            return getattr(ops, name)(x)               # a public op named by a closure string
        return method

    assert gen.describe(reader.uses(adapter)) == "primitive `Exp`"
    assert gen.describe(reader.uses(composite)) == "composite of `Log`, `Mul`"
    assert gen.describe(reader.uses(Forwarder)) == "calls `ops.softmax`"
    assert gen.describe(reader.uses(forward("sigmoid"))) == "calls `ops.sigmoid`"
    assert ns.name(ops.subtract) == "sub" and ns.aliases(ops.sub) == ["subtract"]
    names = {name for name, _, _ in gen.public_ops(ns, reader)}
    assert "add" in names and "grad" not in names and "Primitive" not in names


def _ops_module():
    from spore import ops
    return ops


def test_every_page_has_examples_or_is_reference():
    reference = {"ops.md", "architecture.md"}
    missing = [p.name for p in PAGES if p.name not in reference
               and not python_blocks(p.read_text(encoding="utf-8"))]
    assert not missing, f"pages without a runnable example: {missing}"


@pytest.mark.parametrize("page", [p for p in PAGES if python_blocks(p.read_text("utf-8"))],
                         ids=lambda p: p.name)
def test_examples_run(page, tmp_path):
    blocks = python_blocks(page.read_text(encoding="utf-8"))
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(page)], input=json.dumps(blocks),
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, f"an example in docs/{page.name} failed:\n{proc.stderr[-4000:]}"


LINK = re.compile(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)")
HEADING = re.compile(r"^#+\s+(.*)$", re.M)


def anchors(text):
    """GitHub's anchors for a page's headings: lower case, punctuation dropped, - for spaces."""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in HEADING.findall(FENCE.sub("", text))}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page):
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    broken = []
    for target, anchor in LINK.findall(text):
        if "://" in target:
            continue
        path = page.parent / target if target else page
        if not path.exists():
            broken.append(target)
        elif anchor and path.suffix == ".md" and anchor not in anchors(path.read_text("utf-8")):
            broken.append(f"{target}#{anchor}")
    assert not broken, f"docs/{page.name} has broken links: {broken}"


def test_index_links_every_page():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    unlinked = [p.name for p in PAGES if p.name != "index.md" and f"({p.name})" not in index]
    assert not unlinked, f"docs/index.md does not link: {unlinked}"


def test_python_block_finder():
    text = "a\n```python\nx = 1\n```\n```python no-run\ny\n```\n```sh\nls\n```\n```python\nz\n```\n"
    assert python_blocks(text) == [(3, "x = 1\n"), (12, "z\n")]
