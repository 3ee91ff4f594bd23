"""Writes tests/data/probability_golden.json from the reference MindSpore 2.10 (run with
its interpreter: ``/path/to/mindspore-venv/bin/python tests/data/make_probability_golden.py``).
Each distribution's methods at fixed parameters and values; a method MindSpore does not
offer (or fails in) is recorded as its error message."""
import json
from pathlib import Path

import numpy as np
from mindspore import Tensor
import mindspore.nn.probability.bijector as msb
import mindspore.nn.probability.distribution as msd

CASES = [
    ("Normal", [[0.0, 1.0], [1.0, 2.0]], [[0.5, -1.0], [2.0, 0.5]], [0.3, -1.5]),
    ("Uniform", [[0.0, -1.0], [1.0, 2.0]], [[-1.0, -2.0], [2.0, 3.0]], [0.5, 1.5]),
    ("Bernoulli", [[0.3, 0.8]], [[0.5, 0.6]], [1, 0]),
    ("Exponential", [[0.5, 2.0]], [[1.0, 3.0]], [0.7, 2.5]),
    ("Geometric", [[0.3, 0.8]], [[0.5, 0.6]], [2, 0]),
    ("Poisson", [[0.5, 3.0]], [[1.0, 2.0]], [1.0, 4.0]),
    ("Gamma", [[2.0, 0.5], [1.0, 3.0]], [[1.0, 2.0], [2.0, 1.0]], [0.7, 1.5]),
    ("Beta", [[2.0, 0.5], [1.0, 3.0]], [[1.0, 2.0], [2.0, 1.0]], [0.3, 0.8]),
    ("Gumbel", [[0.0, 1.0], [1.0, 2.0]], [[0.5, -1.0], [2.0, 0.5]], [0.3, -1.5]),
    ("Logistic", [[0.0, 1.0], [1.0, 2.0]], [[0.5, -1.0], [2.0, 0.5]], [0.3, -1.5]),
    ("Cauchy", [[0.0, 1.0], [1.0, 2.0]], [[0.5, -1.0], [2.0, 0.5]], [0.3, -1.5]),
    ("Laplace", [[0.0, 1.0], [1.0, 2.0]], [[0.5, -1.0], [2.0, 0.5]], [0.3, -1.5]),
    ("HalfNormal", [[0.0, 1.0], [1.0, 2.0]], [[0.0, 1.0], [2.0, 0.5]], [0.3, 1.5]),
    ("StudentT", [[3.0, 5.0], [0.0, 1.0], [1.0, 2.0]], [[4.0, 2.0], [0.5, -1.0], [2.0, 0.5]],
     [0.3, -1.5]),
    ("LogNormal", [[0.0, 1.0], [1.0, 2.0]], [[0.5, -1.0], [2.0, 0.5]], [0.3, 1.5]),
    ("Categorical", [[[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]], [[[0.3, 0.3, 0.4], [0.5, 0.25, 0.25]]],
     [2, 0]),
]
BIJECTORS = [("Exp", []), ("PowerTransform", [0.5]), ("ScalarAffine", [2.0, -1.0]),
             ("Softplus", [1.5]), ("GumbelCDF", [0.5, 2.0])]
VALUE_METHODS = ["prob", "log_prob", "cdf", "log_cdf", "survival_function", "log_survival"]
STAT_METHODS = ["mean", "mode", "sd", "var", "entropy"]


def attempt(fn):
    try:
        return fn().asnumpy().tolist()
    except Exception as e:                                       # noqa: BLE001
        return "ERR " + type(e).__name__


def main():
    out = {"distributions": {}, "bijectors": {}}
    for name, params, other, value in CASES:
        d = getattr(msd, name)(*params)
        integer = name in ("Bernoulli", "Geometric", "Categorical")
        v = Tensor(np.array(value, np.int32 if integer else np.float32))
        res = {"params": params, "other": other, "value": value}
        for m in VALUE_METHODS:
            res[m] = attempt(lambda: getattr(d, m)(v))
        for m in STAT_METHODS:
            res[m] = attempt(lambda: getattr(d, m)())
        b = [Tensor(np.array(x, np.float32)) for x in other]
        for m in ("kl_loss", "cross_entropy"):
            res[m] = attempt(lambda: getattr(d, m)(name, *b))
        out["distributions"][name] = res
    x = Tensor(np.array([0.2, 0.7, 1.5], np.float32))
    for name, args in BIJECTORS:
        bij = getattr(msb, name)(*args)
        y = bij.forward(x)
        out["bijectors"][name] = {
            "args": args, "x": [0.2, 0.7, 1.5], "forward": y.asnumpy().tolist(),
            "inverse": bij.inverse(y).asnumpy().tolist(),
            "forward_log_jacobian": bij.forward_log_jacobian(x).asnumpy().tolist(),
            "inverse_log_jacobian": bij.inverse_log_jacobian(y).asnumpy().tolist()}
    Path(__file__).with_name("probability_golden.json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
