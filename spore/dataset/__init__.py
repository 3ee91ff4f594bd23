"""Data pipelines (``mindspore.dataset``): sources, operations, iterators, transforms.

    >>> import numpy as np
    >>> import spore.dataset as ds
    >>> data = ds.NumpySlicesDataset({"x": np.arange(6.0), "y": np.arange(6)}, shuffle=False)
    >>> [batch[1].shape for batch in data.batch(4)]
    [(4,), (2,)]

See ``README.md`` in this folder for how the engine works.
"""
from . import config as config
from . import text as text
from . import transforms as transforms
from . import vision as vision
from .engine.dataset import Dataset as Dataset, zip as zip  # noqa: A004
from .engine.iterators import DictIterator as DictIterator, TupleIterator as TupleIterator
from .engine.ops_batch import BatchDataset as BatchDataset, BatchInfo as BatchInfo
from .engine.ops_flow import (ConcatDataset as ConcatDataset, RepeatDataset as RepeatDataset,
                              ShuffleDataset as ShuffleDataset, SkipDataset as SkipDataset,
                              TakeDataset as TakeDataset, ZipDataset as ZipDataset)
from .engine.ops_rowwise import (FilterDataset as FilterDataset, MapDataset as MapDataset,
                                 ProjectDataset as ProjectDataset,
                                 RenameDataset as RenameDataset)
from .engine.readers import (Cifar10Dataset as Cifar10Dataset, Cifar100Dataset as Cifar100Dataset,
                             EMnistDataset as EMnistDataset,
                             FashionMnistDataset as FashionMnistDataset,
                             ImageFolderDataset as ImageFolderDataset,
                             KMnistDataset as KMnistDataset, MnistDataset as MnistDataset,
                             QMnistDataset as QMnistDataset)
from .engine.readers_small import (FakeImageDataset as FakeImageDataset,
                                   Flowers102Dataset as Flowers102Dataset,
                                   SVHNDataset as SVHNDataset,
                                   RandomDataset as RandomDataset,
                                   SemeionDataset as SemeionDataset, STL10Dataset as STL10Dataset,
                                   USPSDataset as USPSDataset)
from .engine.readers_tfrecord import TFRecordDataset as TFRecordDataset
from .engine.readers_vision import (Caltech101Dataset as Caltech101Dataset,
                                    Caltech256Dataset as Caltech256Dataset,
                                    CelebADataset as CelebADataset, CocoDataset as CocoDataset,
                                    Food101Dataset as Food101Dataset,
                                    OmniglotDataset as OmniglotDataset,
                                    Places365Dataset as Places365Dataset,
                                    RenderedSST2Dataset as RenderedSST2Dataset,
                                    SUN397Dataset as SUN397Dataset,
                                    ManifestDataset as ManifestDataset, VOCDataset as VOCDataset)
from .engine.readers_vision2 import (CityscapesDataset as CityscapesDataset,
                                     DIV2KDataset as DIV2KDataset, KITTIDataset as KITTIDataset,
                                     FlickrDataset as FlickrDataset, LFWDataset as LFWDataset,
                                     SBUDataset as SBUDataset,
                                     WIDERFaceDataset as WIDERFaceDataset)
from .engine.readers_vision3 import (LSUNDataset as LSUNDataset,
                                     PhotoTourDataset as PhotoTourDataset, SBDataset as SBDataset)
from .engine.readers_tedlium import TedliumDataset as TedliumDataset
from .engine.readers_audio import (CMUArcticDataset as CMUArcticDataset,
                                   LJSpeechDataset as LJSpeechDataset,
                                   SpeechCommandsDataset as SpeechCommandsDataset,
                                   YesNoDataset as YesNoDataset)
from .engine.readers_audio2 import (GTZANDataset as GTZANDataset,
                                    LibriTTSDataset as LibriTTSDataset)
from .engine.readers_corpora import (AGNewsDataset as AGNewsDataset,
                                     AmazonReviewDataset as AmazonReviewDataset,
                                     CLUEDataset as CLUEDataset,
                                     CoNLL2000Dataset as CoNLL2000Dataset,
                                     DBpediaDataset as DBpediaDataset, EnWik9Dataset as EnWik9Dataset,
                                     IMDBDataset as IMDBDataset, IWSLT2016Dataset as IWSLT2016Dataset,
                                     IWSLT2017Dataset as IWSLT2017Dataset,
                                     Multi30kDataset as Multi30kDataset,
                                     PennTreebankDataset as PennTreebankDataset,
                                     SogouNewsDataset as SogouNewsDataset, SQuADDataset as SQuADDataset,
                                     SST2Dataset as SST2Dataset, UDPOSDataset as UDPOSDataset,
                                     WikiTextDataset as WikiTextDataset,
                                     YahooAnswersDataset as YahooAnswersDataset,
                                     YelpReviewDataset as YelpReviewDataset)
from .engine.readers_mindrecord import MindDataset as MindDataset
from .engine.readers_text import CSVDataset as CSVDataset, TextFileDataset as TextFileDataset
from .engine.samplers import (BuiltinSampler as BuiltinSampler,
                              DistributedSampler as DistributedSampler, IterSampler as IterSampler,
                              PKSampler as PKSampler,
                              RandomSampler as RandomSampler, Sampler as Sampler,
                              SequentialSampler as SequentialSampler, Shuffle as Shuffle,
                              SubsetRandomSampler as SubsetRandomSampler,
                              SubsetSampler as SubsetSampler,
                              WeightedRandomSampler as WeightedRandomSampler)
from .engine.schema import Schema as Schema
from .engine.cache import DatasetCache as DatasetCache
from .engine.dataset import (AudioBaseDataset as AudioBaseDataset,
                             TextBaseDataset as TextBaseDataset,
                             UnionBaseDataset as UnionBaseDataset,
                             VisionBaseDataset as VisionBaseDataset)
from .engine.ops_batch import PaddedBatchDataset as PaddedBatchDataset
from .engine.sources import SourceDataset as SourceDataset
from .transforms.transforms import Implementation as Implementation
from .utils import LineReader as LineReader
from .engine.serialize import (compare as compare, deserialize as deserialize,
                               serialize as serialize, show as show)
from .engine.debug import DebugHook as DebugHook
from .engine.ops_extra import (BucketBatchByLengthDataset as BucketBatchByLengthDataset,
                               DeserializedDataset as DeserializedDataset,
                               DSCallback as DSCallback, PaddedDataset as PaddedDataset,
                               SyncWaitDataset as SyncWaitDataset,
                               WaitedDSCallback as WaitedDSCallback)
from .config import (ErrorSamplesMode as ErrorSamplesMode,
                     get_callback_timeout as get_callback_timeout,
                     get_debug_mode as get_debug_mode, get_enable_watchdog as get_enable_watchdog,
                     get_error_samples_mode as get_error_samples_mode,
                     get_multiprocessing_start_method as get_multiprocessing_start_method,
                     get_multiprocessing_timeout_interval as get_multiprocessing_timeout_interval,
                     get_num_parallel_workers as get_num_parallel_workers, get_seed as get_seed,
                     get_video_backend as get_video_backend, set_seed as set_seed,
                     set_video_backend as set_video_backend)
from .engine.sources import (GeneratorDataset as GeneratorDataset,
                             MappableDataset as MappableDataset,
                             NumpySlicesDataset as NumpySlicesDataset)

from . import callback as callback  # noqa: E402  (modules that need the engine loaded)
from . import core as core  # noqa: E402
from . import debug as debug  # noqa: E402
from . import samplers as samplers  # noqa: E402
from . import utils as utils  # noqa: E402
from .. import context as context  # noqa: E402  (names MindSpore's module imports)
from .._tensor import Tensor as Tensor  # noqa: E402
from .vision import ToNumpy as ToNumpy  # noqa: E402
from .text.sentencepiece import SentencePieceModel as SentencePieceModel  # noqa: E402
import sys as _sys  # noqa: E402
ds = _sys.modules[__name__]  # MindSpore's module shows itself as ``ds``


def __getattr__(name):
    """MindSpore names Spore leaves out on purpose raise NotImplementedError saying why
    (spore/_absent.py)."""
    if name == "dataloader":        # MindSpore's PyTorch-style loading, imported on use
        import importlib
        return importlib.import_module(f"{__name__}.dataloader")
    from .. import _absent
    return _absent.missing(__name__, name)
