"""Primitive classes of MindSpore's colour, detection, crop, CTC and morphology operators
(adapters over ``spore/_prims/color.py``, ``spore/_prims/ctc_tf.py`` and
``ops/_image_ops3.py``)."""
from __future__ import annotations

from ..._prims import color
from ..._prims.ctc_tf import ctc_loss_v1_p
from ..._tensor import Tensor
from .. import _image_ops3 as F
from . import Primitive, _ops
from ._optim_classes import _bool

__all__ = ["RGBToHSV", "HSVToRGB", "AdjustHue", "AdjustSaturation", "NMSWithMask",
           "NonMaxSuppressionV3", "NonMaxSuppressionWithOverlaps", "CombinedNonMaxSuppression",
           "CropAndResize", "CTCGreedyDecoder", "EditDistance", "CTCLoss", "CTCLossV2",
           "Dilation2D", "ROIAlign"]


def _check_tensor(op, arg, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', the '{arg}' must be a Tensor, but got "
                        f"{type(value).__name__}.")
    return value


class RGBToHSV(Primitive):
    """``RGBToHSV()(images)``: RGB in [0, 1] (last axis) to HSV, hue in [0, 1)."""

    def __call__(self, images):
        return color.rgb_to_hsv_p(_check_tensor("RGBToHSV", "images", images))


class HSVToRGB(Primitive):
    """``HSVToRGB()(x)``: HSV of an NHWC batch (last axis h, s, v) to RGB."""

    def __call__(self, x):
        _check_tensor("HSVToRGB", "x", x)
        if x.ndim != 4:
            raise ValueError(f"For 'HSVToRGB', the dimension of 'x' must be 4 (N, H, W, 3), but "
                             f"got {x.ndim}.")
        return color.hsv_to_rgb_p(x)


class AdjustHue(Primitive):
    """``AdjustHue()(image, delta)``: rotate the hue of RGB ``image`` by ``delta`` turns."""

    def __call__(self, image, delta):
        return color.adjust_hue_p(_check_tensor("AdjustHue", "image", image), delta)


class AdjustSaturation(Primitive):
    """``AdjustSaturation()(image, scale)``: scale the saturation of RGB ``image``."""

    def __call__(self, image, scale):
        return color.adjust_saturation_p(_check_tensor("AdjustSaturation", "image", image),
                                         scale)


class NMSWithMask(Primitive):
    """``NMSWithMask(iou_threshold=0.5)(bboxes)``: ``(sorted boxes, their indices, mask of
    the kept ones)`` for (N, 5) ``(x1, y1, x2, y2, score)`` boxes."""

    def __init__(self, iou_threshold=0.5):
        super().__init__()
        if not isinstance(iou_threshold, float):
            raise ValueError(f"For 'NMSWithMask', the 'iou_threshold' must be a float, but got "
                             f"{type(iou_threshold).__name__}.")
        self.iou_threshold = iou_threshold

    def __call__(self, bboxes):
        return F.nms_with_mask(bboxes, self.iou_threshold)


class NonMaxSuppressionV3(Primitive):
    """``NonMaxSuppressionV3()(boxes, scores, max_output_size, iou_threshold,
    score_threshold)``: indices of the boxes greedy suppression keeps."""

    def __call__(self, boxes, scores, max_output_size, iou_threshold, score_threshold):
        return F.non_max_suppression_v3(boxes, scores, max_output_size, iou_threshold,
                                        score_threshold)


class NonMaxSuppressionWithOverlaps(Primitive):
    """``NonMaxSuppressionWithOverlaps()(overlaps, scores, max_output_size,
    overlap_threshold, score_threshold)``: greedy suppression by a given overlap matrix."""

    def __call__(self, overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        return F.non_max_suppression_with_overlaps(overlaps, scores, max_output_size,
                                                   overlap_threshold, score_threshold)


class CombinedNonMaxSuppression(Primitive):
    """``CombinedNonMaxSuppression(pad_per_class=False, clip_boxes=True)(boxes, scores,
    max_output_size_per_class, max_total_size, iou_threshold, score_threshold)``."""

    def __init__(self, pad_per_class=False, clip_boxes=True):
        super().__init__()
        self.pad_per_class = _bool("CombinedNonMaxSuppression", "pad_per_class", pad_per_class)
        self.clip_boxes = _bool("CombinedNonMaxSuppression", "clip_boxes", clip_boxes)

    def __call__(self, boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
                 score_threshold):
        return F.combined_non_max_suppression(boxes, scores, max_output_size_per_class,
                                              max_total_size, iou_threshold, score_threshold,
                                              self.pad_per_class, self.clip_boxes)


class CropAndResize(Primitive):
    """``CropAndResize(method='bilinear', extrapolation_value=0.0)(x, boxes, box_index,
    crop_size)``: ``ops.crop_and_resize``."""

    def __init__(self, method="bilinear", extrapolation_value=0.0):
        super().__init__()
        self.method, self.extrapolation_value = method, extrapolation_value

    def __call__(self, x, boxes, box_index, crop_size):
        return F.crop_and_resize(x, boxes, box_index, crop_size, self.method,
                                 self.extrapolation_value)


class CTCGreedyDecoder(Primitive):
    """``CTCGreedyDecoder(merge_repeated=True)(inputs, sequence_length)``:
    ``ops.ctc_greedy_decoder``."""

    def __init__(self, merge_repeated=True):
        super().__init__()
        self.merge_repeated = _bool("CTCGreedyDecoder", "merge_repeated", merge_repeated)

    def __call__(self, inputs, sequence_length):
        return F.ctc_greedy_decoder(inputs, sequence_length, self.merge_repeated)


class EditDistance(Primitive):
    """``EditDistance(normalize=True)(hypothesis_indices, hypothesis_values,
    hypothesis_shape, truth_indices, truth_values, truth_shape)``: Levenshtein distances
    of the sequences of two sparse tensors."""

    def __init__(self, normalize=True):
        super().__init__()
        self.normalize = _bool("EditDistance", "normalize", normalize)

    def __call__(self, hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices,
                 truth_values, truth_shape):
        return F.edit_distance(hypothesis_indices, hypothesis_values, hypothesis_shape,
                               truth_indices, truth_values, truth_shape, self.normalize)


class CTCLoss(Primitive):
    """``CTCLoss(preprocess_collapse_repeated=False, ctc_merge_repeated=True,
    ignore_longer_outputs_than_inputs=False)(x, labels_indices, labels_values,
    sequence_length)``: TensorFlow-style CTC of (T, B, C) logits against sparse labels (the
    last class is the blank); returns ``(loss (B,), gradient (T, B, C))``."""

    def __init__(self, preprocess_collapse_repeated=False, ctc_merge_repeated=True,
                 ignore_longer_outputs_than_inputs=False):
        super().__init__()
        self.preprocess_collapse_repeated = _bool("CTCLoss", "preprocess_collapse_repeated",
                                                  preprocess_collapse_repeated)
        self.ctc_merge_repeated = _bool("CTCLoss", "ctc_merge_repeated", ctc_merge_repeated)
        self.ignore_longer_outputs_than_inputs = _bool(
            "CTCLoss", "ignore_longer_outputs_than_inputs", ignore_longer_outputs_than_inputs)

    def __call__(self, x, labels_indices, labels_values, sequence_length):
        for arg, v in (("x", x), ("labels_indices", labels_indices),
                       ("labels_values", labels_values), ("sequence_length", sequence_length)):
            _check_tensor("CTCLoss", arg, v)
        loss, grad = ctc_loss_v1_p(
            x, labels_indices, labels_values, sequence_length,
            preprocess_collapse_repeated=self.preprocess_collapse_repeated,
            ctc_merge_repeated=self.ctc_merge_repeated,
            ignore_longer_outputs_than_inputs=self.ignore_longer_outputs_than_inputs)
        return loss, grad


class CTCLossV2(Primitive):
    """``CTCLossV2(blank=0, reduction='none', zero_infinity=False)(log_probs, targets,
    input_lengths, target_lengths)``: ``ops.ctc_loss``; returns ``(neg_log_likelihood,
    log_alpha)``."""

    def __init__(self, blank=0, reduction="none", zero_infinity=False):
        super().__init__()
        self.blank, self.reduction = blank, reduction
        self.zero_infinity = _bool("CTCLossV2", "zero_infinity", zero_infinity)

    def __call__(self, log_probs, targets, input_lengths, target_lengths):
        return _ops().ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                               self.reduction, self.zero_infinity)


def _pair(op, arg, value):
    if isinstance(value, int) and not isinstance(value, bool):
        return (value, value)
    if isinstance(value, (tuple, list)) and len(value) in (2, 4) and \
            all(isinstance(v, int) for v in value):
        if len(value) == 4 and tuple(value[:2]) != (1, 1):
            raise ValueError(f"For '{op}', a 4-tuple '{arg}' must be (1, 1, h, w), but got "
                             f"{value!r}.")
        return tuple(value[-2:])
    raise TypeError(f"For '{op}', the '{arg}' must be an int or a tuple of 2 or 4 ints, but "
                    f"got {value!r}.")


class Dilation2D(Primitive):
    """``Dilation2D(stride, dilation, pad_mode='SAME', data_format='NCHW')(x, filter)``:
    grey-scale morphological dilation (``max(x + filter)`` over each window)."""

    def __init__(self, stride, dilation, pad_mode="SAME", data_format="NCHW"):
        super().__init__()
        op = "Dilation2D"
        self.stride, self.dilation = _pair(op, "stride", stride), _pair(op, "dilation",
                                                                         dilation)
        if not all(1 <= s <= 255 for s in self.stride) or min(self.dilation) < 1:
            raise ValueError(f"For '{op}', the 'stride' must be in [1, 255] and 'dilation' "
                             f">= 1, but got {stride!r} and {dilation!r}.")
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid"):
            raise ValueError(f"For '{op}', the 'pad_mode' must be 'same' or 'valid', but got "
                             f"{pad_mode!r}.")
        if data_format != "NCHW":
            raise ValueError(f"For '{op}', the 'data_format' must be 'NCHW', but got "
                             f"{data_format!r}.")
        self.pad_mode = pad_mode.lower()

    def __call__(self, x, filter):
        return F.dilation2d(x, filter, self.stride, self.dilation, self.pad_mode)


class ROIAlign(Primitive):
    """``ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num=2,
    roi_end_mode=1)(features, rois)``: region-of-interest align (bilinear samples averaged
    per bin) of NCHW features over (R, 5) ``(batch, x1, y1, x2, y2)`` rois."""

    def __init__(self, pooled_height, pooled_width, spatial_scale, sample_num=2,
                 roi_end_mode=1):
        super().__init__()
        op = "ROIAlign"
        for arg, v in (("pooled_height", pooled_height), ("pooled_width", pooled_width),
                       ("sample_num", sample_num), ("roi_end_mode", roi_end_mode)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"For '{op}', the '{arg}' must be an int, but got "
                                f"{type(v).__name__}.")
        if not isinstance(spatial_scale, float):
            raise TypeError(f"For '{op}', the 'spatial_scale' must be a float, but got "
                            f"{type(spatial_scale).__name__}.")
        if roi_end_mode not in (0, 1):
            raise ValueError(f"For '{op}', the 'roi_end_mode' must be 0 or 1, but got "
                             f"{roi_end_mode}.")
        if pooled_height < 1 or pooled_width < 1 or sample_num < 0:
            raise ValueError(f"For '{op}', the pooled sizes must be positive and 'sample_num' "
                             f">= 0, but got {pooled_height}, {pooled_width}, {sample_num}.")
        self.pooled_height, self.pooled_width = pooled_height, pooled_width
        self.spatial_scale, self.sample_num = spatial_scale, sample_num
        self.roi_end_mode = roi_end_mode

    def __call__(self, features, rois):
        return F.roi_align(features, rois, self.pooled_height, self.pooled_width,
                           self.spatial_scale, self.sample_num, self.roi_end_mode)
