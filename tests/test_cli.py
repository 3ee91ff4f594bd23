"""`spore run`: an unmodified MindSpore script runs on Spore through an import alias."""
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import sys
    import mindspore as ms
    import mindspore.ops as ops
    from mindspore import Tensor, nn, context
    from mindspore.common import dtype as mstype
    import spore
    assert ms is spore and nn is spore.nn and mstype.float32 is spore.float32
    context.set_context(mode=context.PYNATIVE_MODE, device_target="Ascend")
    print("args", sys.argv[1:])
    print(ops.mul(ops.add(Tensor([1.0, 2.0]), 1.0), 2.0))
""")


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "ms_program.py"
    path.write_text(SCRIPT)
    return path


CONSOLE = os.path.join(os.path.dirname(sys.executable), "spore")


@pytest.mark.parametrize("launcher", [[sys.executable, "-m", "spore", "run"],
                                      [CONSOLE, "run"]], ids=["python-m", "console-script"])
def test_spore_run_aliases_mindspore(script, launcher, tmp_path):
    if not os.path.exists(launcher[0]):
        pytest.fail(f"the console script {launcher[0]} is not installed")
    r = subprocess.run([*launcher, str(script), "x", "--flag"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "args ['x', '--flag']" in r.stdout
    assert "[4. 6.]" in r.stdout
    # Ascend falls back to the best device present, with exactly one warning
    assert r.stderr.count("no Ascend backend") == 1


def test_spore_run_missing_file(tmp_path):
    r = subprocess.run([sys.executable, "-m", "spore", "run", str(tmp_path / "nope.py")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "no such file" in r.stderr


def test_alias_install_in_process():
    from spore import _alias
    _alias.install()
    try:
        import mindspore
        import mindspore.nn as mnn
        import spore
        assert mindspore is spore and mnn is spore.nn
    finally:
        _alias.uninstall()
