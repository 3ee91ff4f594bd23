"""Every differentiable primitive is reached by a numerical gradient check.

Runs the gradient checks of every op table (``tests/ops/test_*.py``) under a recorder
and compares the primitives they dispatched with the registry. Primitives whose gradient
is user-defined rather than mathematical are listed with the tests that cover them.
"""
import importlib
import pathlib

from spore._autodiff import tape
from spore._core import primitive as P
from tests.helpers.optable import OpCase, run_grad

# checked by the named tests instead of an op-table case: gradients defined by user code, and
# a random primitive whose table case would need a fixed key
CHECKED_ELSEWHERE = {
    "CellBprop": "tests/test_autodiff_api.py::test_cell_bprop_replaces_the_gradient",
    "CellBackwardHookInputs": "tests/nn/test_cell.py (register_backward_hook tests)",
    "CellBackwardHookOutputs": "tests/nn/test_cell.py (register_backward_hook tests)",
    "Custom": "tests/ops/test_ops_a_custom.py (ops.Custom bprop tests)",
    "CustomMulti": "tests/ops/test_ops_a_custom.py (ops.Custom bprop tests)",
    "HookBackward": "tests/nn/test_backward_pre_hooks.py (ops.HookBackward tests)",
    "Dropout": "tests/ops/test_nn_ops.py::test_dropout_primitive_gradient_with_a_fixed_key",
    # grad(jit(f)) equals grad(f) for every op-table case (test_jit_matches_pynative), and
    # grad(f) is checked numerically
    "JitCall": "tests/helpers/optable.py::run_jit, tests/jit/test_jit_call.py",
    "Recompute": "tests/test_recompute.py::test_recompute_gradient_against_finite_differences",
    "Cond": "tests/jit/test_convert.py::test_gradient_through_a_tensor_if_against_finite_differences",
    "While": "tests/jit/test_convert.py::test_gradients_through_a_data_dependent_while_match_pynative_and_finite_differences",
}


def _tables():
    here = pathlib.Path(__file__).parent
    for path in sorted(here.glob("test_*.py")):
        if path.stem == "test_grad_coverage":
            continue
        module = importlib.import_module(f"tests.ops.{path.stem}")
        if not callable(getattr(module, "test_gradient", None)):
            continue        # the table is not gradient-checked (e.g. random ops)
        seen = set()
        for value in vars(module).values():
            items = value if isinstance(value, (list, tuple)) else [value]
            for case in items:
                if isinstance(case, OpCase) and case.grad and id(case) not in seen:
                    seen.add(id(case))
                    yield case


def test_every_differentiable_primitive_has_a_numerical_gradient_check():
    reached = set()

    def recorder(below):
        def handler(prim, args, attrs):
            if not tape.is_recording():     # count the differentiated forward pass only
                return below(prim, args, attrs)
            reached.add(prim.name)
            if prim.inplace_of:             # the tape differentiates its functional form
                reached.add(prim.inplace_of)
            return below(prim, args, attrs)
        return handler
    for case in _tables():
        with P.handler_scope(recorder):
            run_grad(case)
    differentiable = {p.name for p in P.REGISTRY.values()
                      if p.grad is not None and not p.nondiff}
    missing = sorted(differentiable - reached - set(CHECKED_ELSEWHERE))
    assert not missing, f"differentiable primitives without a numerical gradient check: {missing}"
