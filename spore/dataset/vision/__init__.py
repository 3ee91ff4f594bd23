"""Vision transforms (``mindspore.dataset.vision``) on NumPy HWC images."""
from . import transforms as transforms
from . import utils as utils
from .transforms import (Border as Border, CenterCrop as CenterCrop, Crop as Crop,
                         Decode as Decode, Erase as Erase, HorizontalFlip as HorizontalFlip,
                         HWC2CHW as HWC2CHW, Inter as Inter, Normalize as Normalize,
                         NormalizePad as NormalizePad, Pad as Pad, PadToSize as PadToSize,
                         RandomCrop as RandomCrop, RandomHorizontalFlip as RandomHorizontalFlip,
                         RandomResizedCrop as RandomResizedCrop,
                         RandomVerticalFlip as RandomVerticalFlip, Rescale as Rescale,
                         Resize as Resize, ResizedCrop as ResizedCrop, ToNumpy as ToNumpy,
                         ToTensor as ToTensor, ToType as ToType, VerticalFlip as VerticalFlip,
                         get_image_num_channels as get_image_num_channels,
                         get_image_size as get_image_size)
from .color import (AdjustBrightness as AdjustBrightness, AdjustContrast as AdjustContrast,
                    AdjustSaturation as AdjustSaturation, ConvertColor as ConvertColor,
                    ConvertMode as ConvertMode, Invert as Invert, Posterize as Posterize,
                    Solarize as Solarize)
from .augment import (AdjustGamma as AdjustGamma, AdjustHue as AdjustHue, AdjustSharpness as AdjustSharpness,  # noqa
                      AutoContrast as AutoContrast, CutMixBatch as CutMixBatch, CutOut as CutOut,
                      Equalize as Equalize, FiveCrop as FiveCrop, GaussianBlur as GaussianBlur,
                      Grayscale as Grayscale, ImageBatchFormat as ImageBatchFormat,
                      LinearTransformation as LinearTransformation, MixUpBatch as MixUpBatch,
                      RandomAdjustSharpness as RandomAdjustSharpness,
                      RandomAutoContrast as RandomAutoContrast, RandomEqualize as RandomEqualize,
                      RandomGrayscale as RandomGrayscale, RandomInvert as RandomInvert,
                      RandomPosterize as RandomPosterize, RandomSharpness as RandomSharpness,
                      RandomSolarize as RandomSolarize, TenCrop as TenCrop)
from .geometry import (Affine as Affine, Perspective as Perspective,
                       RandomAffine as RandomAffine, RandomPerspective as RandomPerspective,
                       RandomRotation as RandomRotation, Rotate as Rotate)
from .misc import (HsvToRgb as HsvToRgb, ImageReadMode as ImageReadMode, MixUp as MixUp,
                   RandomColor as RandomColor, RandomColorAdjust as RandomColorAdjust,
                   RandomCropDecodeResize as RandomCropDecodeResize,
                   RandomErasing as RandomErasing, RandomLighting as RandomLighting,
                   RandomResize as RandomResize,
                   RgbToHsv as RgbToHsv, SliceMode as SliceMode, SlicePatches as SlicePatches,
                   ToPIL as ToPIL, encode_jpeg as encode_jpeg, encode_png as encode_png,
                   read_file as read_file, read_image as read_image, write_file as write_file,
                   write_jpeg as write_jpeg, write_png as write_png)
from .autoaugment import (AutoAugment as AutoAugment, AutoAugmentPolicy as AutoAugmentPolicy,
                          RandAugment as RandAugment,
                          RandomSelectSubpolicy as RandomSelectSubpolicy,
                          TrivialAugmentWide as TrivialAugmentWide,
                          UniformAugment as UniformAugment)
from .bbox import (BoundingBoxAugment as BoundingBoxAugment,
                   RandomCropWithBBox as RandomCropWithBBox,
                   RandomHorizontalFlipWithBBox as RandomHorizontalFlipWithBBox,
                   RandomResizedCropWithBBox as RandomResizedCropWithBBox,
                   RandomResizeWithBBox as RandomResizeWithBBox,
                   RandomVerticalFlipWithBBox as RandomVerticalFlipWithBBox,
                   ResizeWithBBox as ResizeWithBBox)
from .video import (DecodeVideo as DecodeVideo, VideoDecoder as VideoDecoder,
                    read_video as read_video, read_video_timestamps as read_video_timestamps)
from ..transforms.transforms import not_random as not_random


def __getattr__(name):
    """MindSpore names Spore leaves out on purpose raise NotImplementedError saying why
    (spore/_absent.py)."""
    from ... import _absent
    return _absent.missing(__name__, name)
