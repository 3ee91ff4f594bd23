"""Metrics against hand-computed values (the numbers in comments are worked out by hand)."""
import numpy as np
import pytest

import spore as ms
from spore import train

SCORES = np.array([[0.2, 0.7, 0.1], [0.9, 0.05, 0.05], [0.3, 0.3, 0.4], [0.1, 0.8, 0.1]])
LABELS = np.array([1, 0, 0, 2])          # argmax predictions are 1, 0, 2, 1
ML_PRED = np.array([[1, 0, 1], [0, 1, 1]])
ML_TRUE = np.array([[1, 0, 1], [0, 1, 0]])


def test_accuracy_accumulates_and_accepts_tensors_lists_one_hot():
    m = train.Accuracy()
    m.update(ms.Tensor(SCORES, ms.float32), ms.Tensor(LABELS, ms.int32))
    assert m.eval() == 0.5                                  # samples 1 and 2 right
    m.update([[0.0, 1.0, 0.0]], [1])
    assert m.eval() == pytest.approx(3 / 5)
    assert train.Accuracy()(SCORES, np.eye(3)[LABELS]) == 0.5
    assert train.Accuracy("multilabel")(ML_PRED, ML_TRUE) == 0.5


def test_accuracy_errors():
    m = train.Accuracy()
    with pytest.raises(RuntimeError, match="number of samples is 0"):
        m.eval()
    with pytest.raises(ValueError, match="needs 2 inputs"):
        m.update(SCORES)
    with pytest.raises(TypeError, match="tensor, list or numpy.ndarray"):
        m.update(SCORES, (1, 0, 0, 2))
    with pytest.raises(ValueError, match="add 1"):
        m.update(SCORES, SCORES)
    m.update(SCORES, LABELS)
    with pytest.raises(ValueError, match="class number not match"):
        m.update(np.ones((2, 4)), np.array([0, 1]))
    with pytest.raises(ValueError, match="should be 0 or 1"):
        train.Accuracy("multilabel").update(ML_PRED * 0.5, ML_TRUE)
    with pytest.raises(TypeError, match="eval_type"):
        train.Accuracy("regression")


def test_precision_recall_per_class():
    # class 0: predicted {s2} (right), actual {s2, s3}; class 1: predicted {s1, s4}, actual {s1};
    # class 2: predicted {s3}, actual {s4}.
    p, r = train.Precision(), train.Recall()
    p.update(SCORES, LABELS)
    r.update(SCORES, LABELS)
    np.testing.assert_allclose(p.eval(), [1.0, 0.5, 0.0])
    np.testing.assert_allclose(r.eval(), [0.5, 1.0, 0.0])
    assert p.eval(average=True) == pytest.approx(0.5)
    assert r.eval(average=True) == pytest.approx(0.5)
    with pytest.raises(TypeError, match="average"):
        p.eval(average=1)
    with pytest.raises(ValueError, match="same classes number"):
        train.Precision().update(SCORES, np.array([1, 0, 0, 3]))


def test_precision_recall_multilabel_are_per_sample():
    p, r = train.Precision("multilabel"), train.Recall("multilabel")
    p.update(ML_PRED, ML_TRUE)
    r.update(ML_PRED, ML_TRUE)
    np.testing.assert_allclose(p.eval(), [1.0, 0.5])        # sample 2: 1 of 2 positives right
    np.testing.assert_allclose(r.eval(), [1.0, 1.0])
    assert p.eval(average=True) == pytest.approx(0.75)


def test_fbeta_and_f1():
    f1 = train.F1()
    f1.update(SCORES, LABELS)
    np.testing.assert_allclose(f1.eval(), [2 / 3, 2 / 3, 0.0])   # 2PR / (P + R)
    f2 = train.Fbeta(2)
    f2.update(SCORES, LABELS)
    np.testing.assert_allclose(f2.eval(), [5 / 9, 5 / 6, 0.0])   # 5 TP / (4 actual + predicted)
    assert f2.eval(average=True) == pytest.approx((5 / 9 + 5 / 6) / 3)
    with pytest.raises(ValueError, match="greater than 0"):
        train.Fbeta(0)
    with pytest.raises(RuntimeError, match="number of samples is 0"):
        train.F1().eval()


def test_top_k():
    scores = np.array([[0.1, 0.5, 0.4], [0.6, 0.3, 0.1], [0.2, 0.3, 0.5]])
    labels = np.array([2, 1, 0])
    assert train.TopKCategoricalAccuracy(2)(scores, labels) == pytest.approx(2 / 3)
    assert train.Top1CategoricalAccuracy()(scores, labels) == 0.0
    assert train.Top5CategoricalAccuracy()(scores, labels) == 1.0
    assert train.TopKCategoricalAccuracy(2)(scores, np.eye(3)[labels]) == pytest.approx(2 / 3)
    with pytest.raises(TypeError, match="should be int"):
        train.TopKCategoricalAccuracy(1.0)
    with pytest.raises(ValueError, match="at least 1"):
        train.TopKCategoricalAccuracy(0)


def test_mae_mse_loss():
    y_pred = np.array([[0.1, 0.2], [0.5, 0.3]])
    y = ms.Tensor(np.array([[0.0, 0.4], [0.5, 1.0]]))
    assert train.MAE()(y_pred, y) == pytest.approx((0.1 + 0.2 + 0.0 + 0.7) / 2)
    assert train.MSE()(y_pred, y) == pytest.approx((0.01 + 0.04 + 0.0 + 0.49) / 2)
    loss = train.Loss()
    loss.update(ms.Tensor(2.0))
    loss.update(ms.Tensor([1.0, 3.0]))
    assert loss.eval() == pytest.approx(2.0)
    with pytest.raises(ValueError, match="must be 1"):
        loss.update(ms.Tensor(np.ones((2, 2))))
    with pytest.raises(RuntimeError, match="MAE"):
        train.MAE().eval()


def test_confusion_matrix():
    y_pred = np.array([[0.2, 0.8], [0.6, 0.4], [0.1, 0.9]])     # predicted 1, 0, 1
    y = np.array([1, 1, 0])
    expected = np.array([[0, 1], [1, 1]])                        # row true, column predicted
    np.testing.assert_array_equal(train.ConfusionMatrix(2)(y_pred, y), expected)
    np.testing.assert_allclose(train.ConfusionMatrix(2, "target")(y_pred, y), [[0, 1], [.5, .5]])
    np.testing.assert_allclose(train.ConfusionMatrix(2, "prediction")(y_pred, y),
                               [[0, .5], [1, .5]])
    np.testing.assert_allclose(train.ConfusionMatrix(2, "all")(y_pred, y), expected / 3)
    thresholded = train.ConfusionMatrix(2)(np.array([0.3, 0.7, 0.5]), np.array([0, 1, 0]))
    np.testing.assert_array_equal(thresholded, [[1, 1], [0, 1]])
    np.testing.assert_array_equal(train.ConfusionMatrix(3, "target")(
        np.array([0, 0]), np.array([0, 0])), [[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match="normalize"):
        train.ConfusionMatrix(2, "rows")
    with pytest.raises(RuntimeError, match="call the 'update'"):
        train.ConfusionMatrix(2).eval()


def test_set_indexes_and_factory():
    m = train.Accuracy().set_indexes([0, 2])
    m.update(SCORES, "ignored", LABELS)
    assert m.eval() == 0.5
    with pytest.raises(ValueError, match="must be a list"):
        m.set_indexes((0, 1))
    assert isinstance(train.get_metric_fn("acc"), train.Accuracy)
    assert train.get_metric_fn("topk", 3).k == 3
    assert "precision" in train.names()
    built = train.get_metrics({"acc", "loss"})
    assert isinstance(built["acc"], train.Accuracy) and isinstance(built["loss"], train.Loss)
    with pytest.raises(KeyError, match="unsupported metric"):
        train.get_metric_fn("nope")
    with pytest.raises(TypeError, match="must be None, dict or set"):
        train.get_metrics(["acc"])


def test_scalar_results_are_python_floats_accumulated_in_float64():
    loss = train.Loss()
    loss.update(ms.Tensor(np.float32(0.1)))
    loss.update(ms.Tensor(np.float32(0.2)))
    # MindSpore 2.10 (NumPy 1.26) returns 0.15000000223517418 here: float32 values, float64 sum
    assert type(loss.eval()) is float and repr(loss.eval()) == "0.15000000223517418"
    assert type(train.Accuracy()(SCORES, LABELS)) is float
    assert type(train.MSE()(SCORES, SCORES)) is float
