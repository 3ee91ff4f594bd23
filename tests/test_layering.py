"""The layers import only the layers below them (DESIGN.md and docs/architecture.md)."""
import ast
import pathlib

import pytest

SPORE = pathlib.Path(__file__).resolve().parents[1] / "spore"


def _imports(path):
    """Module names a file imports (relative imports resolved against the package)."""
    tree = ast.parse(path.read_text())
    package = path.relative_to(SPORE.parent).with_suffix("").parts[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = list(package[:len(package) - node.level + 1]) if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return out


RULES = [
    ("_core", "spore._jit"), ("_prims", "spore._jit"), ("_autodiff", "spore._jit"),
    ("_autodiff", "spore.ops"), ("_core", "spore.ops"), ("_prims", "spore._autodiff"), ("_jit/passes.py", "spore._jit.codegen"),
]


@pytest.mark.parametrize("where,forbidden", RULES)
def test_lower_layers_do_not_import_higher_ones(where, forbidden):
    target = SPORE / where
    files = [target] if target.is_file() else sorted(target.rglob("*.py"))
    bad = [f"{f.relative_to(SPORE)} imports {m}" for f in files for m in _imports(f)
           if m == forbidden or m.startswith(forbidden + ".")]
    assert not bad, bad


def test_set_seed_module_does_not_import_the_dataset_package():
    assert not any(m.startswith("spore.dataset") for m in _imports(SPORE / "_random.py"))
