"""mindspore.safeguard: obfuscate_ckpt / load_obf_params_into_net (NOTE: [Obfuscation
config] in spore/safeguard/_obfuscation.py); behaviour probed on MindSpore 2.10."""
import os

import numpy as np
import pytest

import spore as ms
from spore import nn


class _Sub(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(3, 4)
        self.fc2 = nn.Dense(4, 2)

    def construct(self, x):
        return self.fc2(self.fc1(x))


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.backbone = _Sub()
        self.fc1 = nn.Dense(2, 2)

    def construct(self, x):
        return self.fc1(self.backbone(x))


@pytest.fixture
def saved(tmp_path):
    net = _Net()
    os.makedirs(tmp_path / "ck")
    os.makedirs(tmp_path / "out")
    ms.save_checkpoint(net, str(tmp_path / "ck" / "net.ckpt"))
    return net, tmp_path


def _ratios(tmp_path):
    a = ms.load_checkpoint(str(tmp_path / "ck" / "net.ckpt"))
    b = ms.load_checkpoint(str(tmp_path / "out" / "net_obf.ckpt"))
    return {k: b[k].asnumpy() / a[k].asnumpy() for k in a}


def test_names_are_exported_like_mindspore():
    assert ms.obfuscate_ckpt is ms.safeguard.obfuscate_ckpt
    assert ms.load_obf_params_into_net is ms.safeguard.load_obf_params_into_net


def test_target_modules_scale_weights_and_biases_by_one_factor(saved):
    net, tmp_path = saved
    np.random.seed(0)
    meta = ms.obfuscate_ckpt(net, str(tmp_path / "ck"), target_modules=["backbone", "fc1|fc2"],
                             saved_path=str(tmp_path / "out"))
    assert list(meta) == ["obf_metadata"]
    inverse = meta["obf_metadata"]
    assert inverse.dtype == np.float16 and inverse.shape == (1,)
    ratios = _ratios(tmp_path)
    factor = float(round(ratios["backbone.fc1.weight"].ravel()[0]))    # an integer factor
    assert 1 <= factor < 100
    assert inverse[0] == np.float16(1) / np.float16(factor)
    for name in ("backbone.fc1.weight", "backbone.fc1.bias", "backbone.fc2.weight",
                 "backbone.fc2.bias"):
        np.testing.assert_allclose(ratios[name], factor, rtol=1e-6)
    np.testing.assert_allclose(ratios["fc1.weight"], 1.0)          # outside the path
    np.testing.assert_allclose(ratios["fc1.bias"], 1.0)
    # the network multiplies the factor back: the original weights return
    obf = ms.load_checkpoint(str(tmp_path / "out" / "net_obf.ckpt"))
    w = obf["backbone.fc1.weight"].asnumpy() * inverse.astype(np.float32)
    np.testing.assert_allclose(w, net.backbone.fc1.weight.asnumpy(), rtol=2e-3)


def test_obf_config_and_sub_folders(saved):
    net, tmp_path = saved
    os.makedirs(tmp_path / "ck" / "rank_0")
    ms.save_checkpoint(net, str(tmp_path / "ck" / "rank_0" / "net.ckpt"))
    config = {"obf_metadata_config": [{"name": "obf_metadata", "shape": [1], "type": "random",
                                       "save_metadata": True, "metadata_op": "invert"}],
              "weight_obf_config": [{"target": "fc1/weight", "weight_obf_ops": [
                  {"name": "mul", "input_x": "weight", "input_y": "obf_metadata"}]}]}
    meta = ms.obfuscate_ckpt(net, str(tmp_path / "ck"), obf_config=config,
                             saved_path=str(tmp_path / "out"), obfuscate_scale=3)
    ratios = _ratios(tmp_path)
    assert round(ratios["fc1.weight"].ravel()[0]) in (1, 2)
    np.testing.assert_allclose(ratios["fc1.bias"], 1.0)
    np.testing.assert_allclose(ratios["backbone.fc1.weight"], 1.0)
    assert os.path.isfile(tmp_path / "out" / "rank_0" / "net_obf.ckpt")
    factor = round(ratios["fc1.weight"].ravel()[0])
    assert meta["obf_metadata"][0] == np.float16(1) / np.float16(factor)


def test_root_path_means_the_network_itself(saved):
    net, tmp_path = saved
    ms.obfuscate_ckpt(net, str(tmp_path / "ck"), target_modules=["", "fc1"],
                      saved_path=str(tmp_path / "out"))
    ratios = _ratios(tmp_path)
    assert ratios["fc1.weight"].ravel()[0] >= 1
    np.testing.assert_allclose(ratios["backbone.fc1.weight"], 1.0)


def test_permutation_factors(saved):
    net, tmp_path = saved
    config = {"obf_metadata_config": [{"name": "obf_metadata_p", "shape": [2],
                                       "type": "rearrange", "save_metadata": True}],
              "weight_obf_config": [{"target": "fc1/weight", "weight_obf_ops": [
                  {"name": "permuate", "input_x": "obf_metadata_p", "input_y": "weight"}]}]}
    meta = ms.obfuscate_ckpt(net, str(tmp_path / "ck"), obf_config=config,
                             saved_path=str(tmp_path / "out"))
    perm = meta["obf_metadata_p"]
    assert sorted(perm.tolist()) == [0, 1]
    obf = ms.load_checkpoint(str(tmp_path / "out" / "net_obf.ckpt"))
    np.testing.assert_array_equal(obf["fc1.weight"].asnumpy(), net.fc1.weight.asnumpy()[perm])


def test_errors_match_mindspore(saved):
    net, tmp_path = saved
    ck, out = str(tmp_path / "ck"), str(tmp_path / "out")
    with pytest.raises(ValueError, match="should contain at least two string values"):
        ms.obfuscate_ckpt(net, ck, target_modules=["backbone"], saved_path=out)
    with pytest.raises(ValueError, match="the path nope does not exist."):
        ms.obfuscate_ckpt(net, ck, target_modules=["nope", "fc1"], saved_path=out)
    with pytest.raises(ValueError, match=r"all targets \['zz'\] do not exist in the path backbone"):
        ms.obfuscate_ckpt(net, ck, target_modules=["backbone", "zz"], saved_path=out)
    with pytest.raises(ValueError, match="can only contain uppercase and lowercase letters"):
        ms.obfuscate_ckpt(net, ck, target_modules=["b-x", "fc1"], saved_path=out)
    with pytest.raises(TypeError, match="obf_config type should be dict"):
        ms.obfuscate_ckpt(net, ck, obf_config=[1], saved_path=out)
    with pytest.raises(ValueError, match="obfuscate_scale must be float or int, and larger than 1"):
        ms.obfuscate_ckpt(net, ck, target_modules=["backbone", "fc1"], saved_path=out,
                          obfuscate_scale=1)
    with pytest.raises(ValueError, match="nodir is not exist, please check the input ckpt_files"):
        ms.obfuscate_ckpt(net, "nodir", target_modules=["backbone", "fc1"])
    with pytest.raises(TypeError, match="network must be nn.Cell"):
        ms.obfuscate_ckpt(object(), ck, target_modules=["backbone", "fc1"])


def test_load_obf_params_into_net_checks_and_returns_the_network(saved):
    net, _ = saved
    assert ms.load_obf_params_into_net(net, ["backbone", "fc1|fc2"]) is net
    with pytest.raises(ValueError, match="data_parallel_num must be positive number, but got 0"):
        ms.load_obf_params_into_net(net, ["backbone", "fc1"], data_parallel_num=0)
    with pytest.raises(ValueError, match="the path nope does not exist."):
        ms.load_obf_params_into_net(net, ["nope", "fc1"])
    with pytest.raises(TypeError, match="obf_ratios must be Tensor"):
        ms.load_obf_params_into_net(net, ["backbone", "fc1"], obf_ratios=[1.0])
    with pytest.raises(TypeError, match="ignored_func_decorators"):
        ms.load_obf_params_into_net(net, ["backbone", "fc1"], ignored_func_decorators="jit")


def test_layers_get_one_factor_each(tmp_path):
    class Layer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.attention = _Sub()

    class Blocks(nn.Cell):
        def __init__(self):
            super().__init__()
            self.blocks = nn.CellList([Layer(), Layer()])

    net = Blocks()
    os.makedirs(tmp_path / "ck")
    os.makedirs(tmp_path / "out")
    ms.save_checkpoint(net, str(tmp_path / "ck" / "net.ckpt"))
    meta = ms.obfuscate_ckpt(net, str(tmp_path / "ck"),
                             target_modules=["blocks/attention", "fc1", "obfuscate_layers:2"],
                             saved_path=str(tmp_path / "out"))
    assert sorted(meta) == ["obf_metadata_0", "obf_metadata_1"]
    ratios = _ratios(tmp_path)
    for layer in (0, 1):
        factor = float(round(ratios[f"blocks.{layer}.attention.fc1.weight"].ravel()[0]))
        np.testing.assert_allclose(ratios[f"blocks.{layer}.attention.fc1.bias"], factor,
                                   rtol=1e-6)
        assert meta[f"obf_metadata_{layer}"][0] == np.float16(1) / np.float16(factor)
        np.testing.assert_allclose(ratios[f"blocks.{layer}.attention.fc2.weight"], 1.0)
    with pytest.raises(ValueError, match="'obfuscate_layers:all' or'obfuscate_layers:int'"):
        ms.obfuscate_ckpt(net, str(tmp_path / "ck"), target_modules=["blocks/attention", "fc1", "layers:2"],
                          saved_path=str(tmp_path / "out"))
