"""``mindspore.dataset.samplers``: the samplers (``engine/samplers.py``)."""
from .engine.samplers import (BuiltinSampler as BuiltinSampler,  # noqa: F401
                              DistributedSampler as DistributedSampler,
                              IterSampler as IterSampler, PKSampler as PKSampler,
                              RandomSampler as RandomSampler, Sampler as Sampler,
                              SequentialSampler as SequentialSampler,
                              SubsetRandomSampler as SubsetRandomSampler,
                              SubsetSampler as SubsetSampler,
                              WeightedRandomSampler as WeightedRandomSampler)
