"""Dataset programs: fixed-order pipelines and the batches they produce."""
import numpy as np

from ._helpers import program, randn


def rows(seed):
    rng = np.random.default_rng(seed)
    data = [(randn(rng, 3), np.int32(i)) for i in range(7)]

    def generator():
        yield from data

    return generator


@program
def dataset_pipeline(ms, seed):
    ds = ms.dataset
    dataset = ds.GeneratorDataset(rows(seed), column_names=["x", "label"], shuffle=False)
    dataset = dataset.map(lambda x: x * 2.0 + 1.0, input_columns=["x"])
    dataset = dataset.batch(3, drop_remainder=False)
    dataset = dataset.map(lambda label: label * 10, input_columns="label")
    out = {}
    for i, batch in enumerate(dataset.create_dict_iterator(output_numpy=True)):
        out.update({f"batch{i}/{name}": value for name, value in batch.items()})
    out["dataset_size"] = np.array(dataset.get_dataset_size())
    return out
