"""Names MindSpore 2.10 programs reach for, present in Spore. Every name listed here exists in
the reference's namespace (probed with dir() on /work/venvs/ms)."""
import pytest

import spore as ms

NN_NAMES = (
    "Pad", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad2d", "ReflectionPad1d",
    "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "Linear", "BiDense", "Unflatten", "Upsample", "PixelShuffle",
    "PixelUnshuffle", "ChannelShuffle", "Softmax2d", "GLU", "Norm", "Tril", "Triu", "OneHot",
    "Range", "MatMul", "Moments", "L1Regularizer", "MarginRankingLoss", "CosineEmbeddingLoss",
    "HingeEmbeddingLoss", "SoftMarginLoss", "MultiLabelSoftMarginLoss", "MAELoss", "RMSELoss",
    "GaussianNLLLoss", "PoissonNLLLoss", "DiceLoss", "MultiClassDiceLoss", "FocalLoss",
)
OPS_NAMES = (
    "strided_slice", "slice", "reverse", "numel", "size", "rank", "shape", "view_as", "vsplit",
    "hsplit", "dsplit", "atleast_1d", "atleast_2d", "atleast_3d", "dstack", "row_stack",
    "diag_embed", "diagflat", "cartesian_prod", "block_diag", "unique_consecutive",
    "sequence_mask", "select_scatter", "slice_scatter", "matrix_band_part",
    "unsorted_segment_sum", "unsorted_segment_prod", "unsorted_segment_max",
    "unsorted_segment_min", "tensor_scatter_sub", "logspace", "range", "tril_indices",
    "triu_indices",
)
# MindSpore exports its functional autodiff transforms at the top level as well
# (ms.vjp is ms.ops.vjp)
TOP_LEVEL_AUTODIFF = ("vjp", "jvp", "jacrev", "jacfwd")


@pytest.mark.parametrize("name", NN_NAMES)
def test_nn_name(name):
    assert isinstance(getattr(ms.nn, name), type)


@pytest.mark.parametrize("name", OPS_NAMES)
def test_ops_name(name):
    assert callable(getattr(ms.ops, name))


def test_top_level_autodiff_transforms():
    for name in TOP_LEVEL_AUTODIFF:
        assert getattr(ms, name) is getattr(ms.ops, name)
