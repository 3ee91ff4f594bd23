"""Vision transforms (``mindspore.dataset.vision``) on NumPy HWC images."""
from . import transforms as transforms
from .transforms import (Border as Border, CenterCrop as CenterCrop, Crop as Crop,
                         Decode as Decode, HorizontalFlip as HorizontalFlip, HWC2CHW as HWC2CHW,
                         Inter as Inter, Normalize as Normalize, Pad as Pad,
                         RandomCrop as RandomCrop, RandomHorizontalFlip as RandomHorizontalFlip,
                         RandomResizedCrop as RandomResizedCrop,
                         RandomVerticalFlip as RandomVerticalFlip, Rescale as Rescale,
                         Resize as Resize, ToTensor as ToTensor, ToType as ToType,
                         VerticalFlip as VerticalFlip)
