"""Learning-rate schedules (Cells on global_step) and dynamic_lr lists, against values
produced by MindSpore 2.10 (CPU) for the same arguments, and their argument errors."""
import math

import numpy as np
import pytest

import spore as ms
from spore import nn, Tensor

# schedule(Tensor([i], int32)) for i = 0..9, printed by MindSpore 2.10 (float32 values)
MINDSPORE_SCHEDULES = {
    "exp": (lambda: nn.ExponentialDecayLR(0.1, 0.9, 4),
            [0.1, 0.09740037, 0.09486832, 0.09240211, 0.09, 0.08766034, 0.0853815, 0.0831619,
             0.081, 0.0788943]),
    "exp_stair": (lambda: nn.ExponentialDecayLR(0.1, 0.9, 4, True),
                  [0.1] * 4 + [0.09] * 4 + [0.081] * 2),
    "nat": (lambda: nn.NaturalExpDecayLR(0.1, 0.9, 4),
            [0.1, 0.04065697, 0.01652989, 0.006720554, 0.002732373, 0.0011109, 0.0004516584,
             0.0001836306, 7.465862e-05, 3.035394e-05]),
    "nat_stair": (lambda: nn.NaturalExpDecayLR(0.1, 0.9, 4, True),
                  [0.1] * 4 + [0.002732373] * 4 + [7.465862e-05] * 2),
    "inv": (lambda: nn.InverseDecayLR(0.1, 0.5, 4),
            [0.1, 0.08888889, 0.08, 0.07272728, 0.06666667, 0.06153847, 0.05714286, 0.05333334,
             0.05, 0.04705882]),
    "inv_stair": (lambda: nn.InverseDecayLR(0.1, 0.5, 4, True),
                  [0.1] * 4 + [0.06666667] * 4 + [0.05] * 2),
    "cos": (lambda: nn.CosineDecayLR(0.01, 0.1, 4),
            [0.1, 0.08681981, 0.055, 0.02318019] + [0.01] * 6),
    "poly": (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5),
             [0.1, 0.08794229, 0.07363961, 0.055] + [0.01] * 6),
    "poly_update": (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5, True),
                    [0.1, 0.08794229, 0.07363961, 0.055, 0.01, 0.06511352, 0.055, 0.0418198,
                     0.01, 0.055]),
    "warmup": (lambda: nn.WarmUpLR(0.1, 4), [0.0, 0.025, 0.05, 0.075] + [0.1] * 6),
}


@pytest.mark.parametrize("name", sorted(MINDSPORE_SCHEDULES))
def test_schedule_values_match_mindspore(name):
    make, want = MINDSPORE_SCHEDULES[name]
    schedule = make()
    got = []
    for step in range(10):
        out = schedule(Tensor(np.array([step], np.int32)))
        assert out.shape == (1,) and out.dtype == ms.float32
        got.append(float(out[0]))
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-9)


def test_schedule_formulas():
    # the documented formulas in float64, for a step in the middle of a decay period
    step = Tensor(np.array([6], np.int32))
    assert float(nn.ExponentialDecayLR(0.2, 0.7, 4)(step)[0]) == pytest.approx(0.2 * 0.7 ** 1.5)
    assert float(nn.NaturalExpDecayLR(0.2, 0.1, 4)(step)[0]) == pytest.approx(
        0.2 * math.exp(-0.6))
    assert float(nn.InverseDecayLR(0.2, 0.3, 4)(step)[0]) == pytest.approx(0.2 / (1 + 0.45))
    assert float(nn.CosineDecayLR(0.0, 0.2, 8)(step)[0]) == pytest.approx(
        0.1 * (1 + math.cos(math.pi * 6 / 8)), abs=1e-7)
    assert float(nn.PolynomialDecayLR(0.2, 0.0, 8, 2.0)(step)[0]) == pytest.approx(
        0.2 * (1 - 6 / 8) ** 2)
    assert float(nn.WarmUpLR(0.2, 8)(step)[0]) == pytest.approx(0.2 * 6 / 8)


def test_schedule_is_a_cell_without_parameters():
    schedule = nn.ExponentialDecayLR(0.1, 0.9, 4)
    assert isinstance(schedule, nn.LearningRateSchedule) and isinstance(schedule, nn.Cell)
    assert list(schedule.get_parameters()) == []
    assert schedule(Tensor(np.array(3, np.int32))).shape == ()
    with pytest.raises(NotImplementedError):
        nn.LearningRateSchedule()(Tensor(np.array([0], np.int32)))


# dynamic_lr lists: outputs of MindSpore 2.10 for the same calls
@pytest.mark.parametrize("got,want", [
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1), [0.1, 0.1, 0.09, 0.09, 0.081, 0.081]),
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 6, 2, 2, True), [0.1] * 4 + [0.09] * 2),
    (lambda: nn.natural_exp_decay_lr(0.1, 0.9, 6, 2, 2, True),
     [0.1] * 4 + [0.016529888822158657] * 2),
    (lambda: nn.inverse_decay_lr(0.1, 0.5, 6, 2, 2),
     [0.1, 0.1, 0.08, 0.08, 0.06666666666666667, 0.06666666666666667]),
    (lambda: nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2), [0.1, 0.1, 0.055, 0.055, 0.01, 0.01]),
    (lambda: nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5),
     [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01]),
    (lambda: nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5, True),
     [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01]),
    (lambda: nn.warmup_lr(0.1, 6, 2, 2), [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]),
    (lambda: nn.piecewise_constant_lr([1, 3, 4], [0.1, 0.05, 0.01]), [0.1, 0.05, 0.05, 0.01]),
    (lambda: nn.piecewise_constant_lr((1, 2), (0.1, 0.2)), [0.1, 0.2]),
    (lambda: nn.piecewise_constant_lr([2, 2], [0.1, 0.2]), [0.1, 0.1]),
    (lambda: nn.natural_exp_decay_lr(0.1, 0.5, 3, 1, 1), [0.1 * math.exp(-0.5 * i)
                                                          for i in range(3)]),
])
def test_dynamic_lr_lists(got, want):
    values = got()
    assert isinstance(values, list)
    np.testing.assert_allclose(values, want, rtol=1e-12)


@pytest.mark.parametrize("make,err,match", [
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 0), ValueError,
     "'decay_steps' must be int and must > 0"),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 2.0), TypeError, "'decay_steps' must be int"),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, True), TypeError, "'decay_steps'"),
    (lambda: nn.ExponentialDecayLR(1, 0.9, 2), TypeError, "'learning_rate' must be float"),
    (lambda: nn.ExponentialDecayLR(-0.1, 0.9, 2), ValueError, "must be float and must > 0"),
    (lambda: nn.ExponentialDecayLR(0.1, -0.9, 2), ValueError, "'decay_rate'"),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 2, 1), TypeError, "'is_stair' should be 'bool'"),
    (lambda: nn.CosineDecayLR(0, 0.1, 2), TypeError, "'min_lr' must be type of float"),
    (lambda: nn.CosineDecayLR(0.2, 0.1, 2), ValueError, "greater than the 'min_lr'"),
    (lambda: nn.CosineDecayLR(0.0, 1, 2), TypeError, "'max_lr' must be float"),
    (lambda: nn.PolynomialDecayLR(0.1, 0, 2, 0.5), TypeError, "'end_learning_rate'"),
    (lambda: nn.PolynomialDecayLR(0.1, 0.0, 2, 1), TypeError, "'power' must be float"),
    (lambda: nn.PolynomialDecayLR(0.1, 0.0, 2, 1.0, 1), TypeError, "'update_decay_steps'"),
    (lambda: nn.WarmUpLR(1, 2), TypeError, "'learning_rate' must be type of float"),
    (lambda: nn.WarmUpLR(0.1, 0), ValueError, "'warmup_steps'"),
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 0, 1, 1), ValueError, "'total_step'"),
    (lambda: nn.exponential_decay_lr(1, 0.9, 3, 1, 1), TypeError, "'learning_rate' must be"),
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 3, 1, 1, 1), TypeError, "'is_stair'"),
    (lambda: nn.natural_exp_decay_lr(0.1, 1, 3, 1, 1), TypeError, "'decay_rate' must be float"),
    (lambda: nn.cosine_decay_lr(0, 0.1, 3, 1, 1), TypeError, "'min_lr'"),
    (lambda: nn.cosine_decay_lr(0.2, 0.1, 3, 1, 1), ValueError, "greater than the 'min_lr'"),
    (lambda: nn.polynomial_decay_lr(0.1, 0, 3, 1, 1, 0.5), TypeError, "'end_learning_rate'"),
    (lambda: nn.warmup_lr(1, 3, 1, 1), TypeError, "'learning_rate'"),
    (lambda: nn.piecewise_constant_lr([1, 2], [0.1]), ValueError, "size of 'milestone'"),
    (lambda: nn.piecewise_constant_lr(3, [0.1]), TypeError, "'milestone'"),
    (lambda: nn.piecewise_constant_lr([2, 1], [0.1, 0.2]), ValueError, "greater than"),
    (lambda: nn.piecewise_constant_lr([1, 2], [1, 0.2]), TypeError, r"'learning_rates\[0\]'"),
    (lambda: nn.piecewise_constant_lr([0, 2], [0.1, 0.2]), ValueError, r"'milestone\[0\]'"),
])
def test_argument_errors(make, err, match):
    with pytest.raises(err, match=match):
        make()


def test_warmup_lr_zero_rate_is_allowed():
    assert nn.warmup_lr(0.0, 3, 1, 1) == [0.0, 0.0, 0.0]
