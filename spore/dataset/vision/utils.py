"""The enums and image helpers of ``mindspore.dataset.vision.utils``."""
from ..transforms.transforms import not_random as not_random  # noqa: F401
from .augment import ImageBatchFormat as ImageBatchFormat  # noqa: F401
from .autoaugment import AutoAugmentPolicy as AutoAugmentPolicy  # noqa: F401
from .color import ConvertMode as ConvertMode  # noqa: F401
from .misc import (ImageReadMode as ImageReadMode, SliceMode as SliceMode,  # noqa: F401
                   encode_jpeg as encode_jpeg, encode_png as encode_png, read_file as read_file,
                   read_image as read_image, write_file as write_file, write_jpeg as write_jpeg,
                   write_png as write_png)
from .transforms import (Border as Border, Inter as Inter,  # noqa: F401
                         get_image_num_channels as get_image_num_channels,
                         get_image_size as get_image_size)
