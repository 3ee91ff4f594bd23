"""Spore's public names against MindSpore 2.10's (tools/api_surface.py, docs/compatibility.md).

Every public name of the MindSpore modules in tests/data/api_surface/mindspore_2_10.json is
present in the matching Spore module, absent by design (spore/_absent.py: reaching it raises
NotImplementedError with the reason) or in the not-yet list, which must be exact.
"""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import spore as ms
from spore import _absent

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("api_surface", ROOT / "tools" / "api_surface.py")
surface = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(surface)

MS_NAMES = surface.mindspore_names()
NOT_YET = surface.read_not_yet()
MODULES = sorted(MS_NAMES)


def test_the_surface_covers_the_modules_the_issue_names():
    assert set(MODULES) == {
        "mindspore", "mindspore.ops", "mindspore.nn", "mindspore.numpy", "mindspore.dataset",
        "mindspore.dataset.vision", "mindspore.dataset.transforms", "mindspore.dataset.text",
        "mindspore.train", "mindspore.amp", "mindspore.mint", "mindspore.mint.nn",
        "mindspore.mint.nn.functional", "mindspore.mint.optim", "mindspore.mint.linalg",
        "mindspore.mint.special", "mindspore.communication"}
    assert len(MS_NAMES["mindspore.ops"]) == 1491 and len(MS_NAMES["mindspore.mint"]) == 233


@pytest.mark.parametrize("module", MODULES)
def test_each_name_is_present_absent_by_design_or_not_yet(module):
    mod = surface.spore_module(module)
    wrong = []
    for name in MS_NAMES[module]:
        absent = _absent.reason(module, name) is not None
        not_yet = name in NOT_YET.get(module, ())
        present = hasattr(mod, name)
        if present + absent + not_yet != 1:
            wrong.append(f"{name} (present={present}, absent={absent}, not_yet={not_yet})")
    assert not wrong, (f"{module}: each name must be exactly one of present / absent by design "
                       f"/ not yet; run `python tools/api_surface.py --write` after implementing "
                       f"names:\n" + "\n".join(wrong))


@pytest.mark.parametrize("module", MODULES)
def test_absent_names_raise_not_implemented_with_the_reason(module):
    mod = surface.spore_module(module)
    for name in _absent.ABSENT.get(module, {}):
        assert name in MS_NAMES[module], f"{module}.{name} is not a MindSpore 2.10 name"
        with pytest.raises(NotImplementedError, match="deliberately not provided by Spore") as e:
            getattr(mod, name)
        assert _absent.reason(module, name) in str(e.value)
        assert isinstance(e.value, AttributeError) and not hasattr(mod, name)
        assert getattr(mod, name, "default") == "default"


def test_not_yet_list_names_only_mindspore_names():
    for module, names in NOT_YET.items():
        assert names <= set(MS_NAMES[module]), names - set(MS_NAMES[module])


def test_unknown_names_still_raise_plain_attribute_error():
    for mod in (ms, ms.ops, ms.nn, ms.mint, ms.mint.nn.functional, ms.train):
        with pytest.raises(AttributeError) as e:
            mod.no_such_name_anywhere
        assert not isinstance(e.value, NotImplementedError)


def test_not_yet_list_and_docs_counts_are_current():
    proc = subprocess.run([sys.executable, "tools/api_surface.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_top_level_autodiff_transforms():
    # MindSpore exports its functional autodiff transforms at the top level as well
    for name in ("vjp", "jvp", "jacrev", "jacfwd"):
        assert getattr(ms, name) is getattr(ms.ops, name)


def test_mint_under_spore_run(tmp_path):
    script = tmp_path / "mint_script.py"
    script.write_text(
        "import mindspore as ms\n"
        "from mindspore import mint\n"
        "from mindspore.mint.nn import functional as F\n"
        "x = mint.ones((2, 3))\n"
        "print(mint.sum(mint.add(x, x, alpha=2), dim=1), F.relu(x).shape, "
        "mint.nn.Linear(3, 1)(x).shape)\n")
    out = subprocess.run([sys.executable, "-m", "spore", "run", str(script)], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[9.", "9.]", "(2,", "3)", "(2,", "1)"]
