"""ms.Generator and ms.default_generator: private random streams for generator= ops."""
import numpy as np
import pytest

import spore as ms
from spore import mint, ops


def test_a_generator_is_its_own_reproducible_stream():
    g = ms.Generator()
    assert g.initial_seed() == 0 and g.get_state().asnumpy().tolist() == [0] * 16
    assert g.manual_seed(5) is g
    assert g.get_state().asnumpy().tolist() == [5] + [0] * 15     # MindSpore's layout
    a = mint.rand(3, generator=g)
    state = g.get_state()
    b = mint.rand(3, generator=g)
    assert not np.array_equal(a.asnumpy(), b.asnumpy())
    g.set_state(state)
    np.testing.assert_array_equal(mint.rand(3, generator=g).asnumpy(), b.asnumpy())
    twin = ms.Generator().manual_seed(5)
    np.testing.assert_array_equal(mint.rand(3, generator=twin).asnumpy(), a.asnumpy())


def test_generator_draws_leave_the_global_stream_alone():
    g = ms.Generator().manual_seed(9)
    ms.set_seed(1)
    want = mint.rand(4).asnumpy()
    ms.set_seed(1)
    for fn in (lambda: mint.randn(2, generator=g), lambda: mint.randint(0, 5, (3,), generator=g),
               lambda: mint.randperm(4, generator=g), lambda: mint.normal(0., 1., (2,), generator=g),
               lambda: mint.bernoulli(ms.Tensor(np.full(3, 0.5, np.float32)), generator=g),
               lambda: mint.multinomial(ms.Tensor(np.ones(4, np.float32)), 2, generator=g)):
        fn()
    np.testing.assert_array_equal(mint.rand(4).asnumpy(), want)


def test_default_generator_is_the_global_stream():
    ms.set_seed(3)
    assert ms.default_generator.initial_seed() == 3
    state = ms.default_generator.get_state()
    a = ops.rand(2).asnumpy()
    ms.default_generator.set_state(state)
    np.testing.assert_array_equal(ops.rand(2).asnumpy(), a)
    ms.default_generator.manual_seed(4)
    assert ms.get_seed() == 4


def test_a_generator_inside_jit_runs_in_pynative_with_the_same_numbers():
    g = ms.Generator().manual_seed(2)
    f = ms.jit(lambda: mint.rand(3, generator=g) * 2)
    with pytest.warns(RuntimeWarning, match="Generator"):
        got = f().asnumpy()
    np.testing.assert_array_equal(got, mint.rand(3, generator=ms.Generator().manual_seed(2))
                                  .asnumpy() * 2)


def test_bad_arguments():
    with pytest.raises(TypeError, match="seed"):
        ms.Generator().manual_seed(1.5)
    with pytest.raises(TypeError, match="Tensor"):
        ms.Generator().set_state([0] * 16)
    with pytest.raises(TypeError, match="mindspore.Generator"):
        mint.rand(2, generator=3)
