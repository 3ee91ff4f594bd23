"""Functional-op programs: values and gradients of ops.*."""
import numpy as np

from ._helpers import program, randn, input_grads, prefixed


@program
def interpolate(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    x = randn(rng, 1, 2, 3, 4)
    out = {}
    for align in (False, True):
        def up(t, align=align):
            return ops.interpolate(t, size=(5, 7), mode="bilinear", align_corners=align)

        def down(t, align=align):
            return ops.interpolate(t, size=(2, 3), mode="bilinear", align_corners=align)

        out.update(prefixed(f"up_align{int(align)}", input_grads(ms, up, rng, x)))
        out.update(prefixed(f"down_align{int(align)}", input_grads(ms, down, rng, x)))
    scaled = ops.interpolate(ms.Tensor(x), scale_factor=(2.0, 1.5), mode="bilinear",
                             recompute_scale_factor=True)
    out["scale_factor"] = scaled.asnumpy()
    out["nearest"] = ops.interpolate(ms.Tensor(x), size=(5, 7), mode="nearest").asnumpy()
    return out


@program
def pad(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    x3, x4 = randn(rng, 2, 3, 4), randn(rng, 1, 2, 3, 4)
    cases = {
        "constant": (x3, (1, 2), "constant", 0.5),
        "constant_2d_negative": (x4, (1, -1, 2, 0), "constant", None),
        "reflect": (x3, (2, 1), "reflect", None),
        "reflect_2d": (x4, (1, 2, 2, 1), "reflect", None),
        "replicate": (x3, (2, 3), "replicate", None),
        "replicate_2d": (x4, (3, 1, 0, 2), "replicate", None),
        "circular": (x3, (1, 2), "circular", None),
        "circular_2d": (x4, (2, 1, 1, 2), "circular", None),
    }
    out = {}
    for name, (x, padding, mode, value) in cases.items():
        def padded(t, padding=padding, mode=mode, value=value):
            return ops.pad(t, padding, mode=mode, value=value)

        out.update(prefixed(name, input_grads(ms, padded, rng, x)))
    return out
