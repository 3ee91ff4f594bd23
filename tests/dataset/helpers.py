"""Small pipelines shared by the dataset tests."""
import numpy as np

import spore.dataset as ds


def table(n=5, shuffle=False, **kwargs):
    """Columns a (int32 i), b (float32 10 i), c (int64 i)."""
    return ds.NumpySlicesDataset({"a": np.arange(n, dtype=np.int32),
                                  "b": np.arange(n, dtype=np.float32) * 10,
                                  "c": np.arange(n)}, shuffle=shuffle, **kwargs)


def rows(dataset, **kwargs):
    """All rows of one pass as lists of Python values."""
    return [[a.tolist() for a in row]
            for row in dataset.create_tuple_iterator(output_numpy=True, **kwargs)]


def column(dataset, index=0):
    return [row[index] for row in rows(dataset)]
