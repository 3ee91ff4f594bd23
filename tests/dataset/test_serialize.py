"""serialize / deserialize / show / compare: a pipeline written as JSON and read back
gives the same rows; Python functions are named and refused on reading."""
import json

import numpy as np
import pytest

import spore as ms
import spore.dataset as ds
from spore.dataset import transforms, vision


def _pipeline():
    data = ds.NumpySlicesDataset({"image": np.arange(4 * 6 * 8 * 3).reshape(4, 6, 8, 3)
                                  .astype(np.uint8), "label": np.arange(4)}, shuffle=False)
    data = data.map([vision.Resize((4, 5)), vision.HWC2CHW()], "image")
    data = data.map(transforms.TypeCast(ms.int32), "label")
    return data.batch(2, drop_remainder=True).repeat(2)


def _rows(d):
    return [[a.tolist() for a in r] for r in d.create_tuple_iterator(output_numpy=True)]


def test_round_trip(tmp_path):
    pipeline = _pipeline()
    tree = ds.serialize(pipeline)
    assert tree["op_type"].endswith("RepeatDataset") and tree["args"][1] == 2
    rebuilt = ds.deserialize(input_dict=json.loads(json.dumps(tree)))
    assert ds.compare(pipeline, rebuilt) and _rows(rebuilt) == _rows(pipeline)
    path = tmp_path / "pipeline.json"
    assert pipeline.to_json(str(path)) == tree
    assert _rows(ds.deserialize(json_filepath=str(path))) == _rows(pipeline)
    assert not ds.compare(pipeline, _pipeline().shuffle(4))


def test_sources_with_samplers_and_schemas(tmp_path):
    schema = ds.Schema()
    schema.add_column("x", de_type=ms.int16, shape=[2])
    random = ds.RandomDataset(total_rows=3, schema=schema, shuffle=False)
    again = ds.deserialize(input_dict=ds.serialize(random))
    assert again.get_col_names() == ["x"] and again.get_dataset_size() == 3
    data = ds.NumpySlicesDataset({"a": np.arange(6)}, sampler=ds.SequentialSampler(2, 3))
    assert _rows(ds.deserialize(input_dict=ds.serialize(data))) == [[2], [3], [4]]


def test_python_functions_and_show(capsys):
    data = ds.NumpySlicesDataset({"a": np.arange(3)}, shuffle=False).map(lambda x: x + 1)
    tree = ds.serialize(data)
    assert tree["args"][1] == {"python_function": "test_python_functions_and_show.<locals>."
                                                     "<lambda>"}
    with pytest.raises(ValueError, match="Python function"):
        ds.deserialize(input_dict=tree)
    ds.show(data, indentation=None)
    assert json.loads(capsys.readouterr().out) == tree
    with pytest.raises(ValueError, match="not a class of spore.dataset"):
        ds.deserialize(input_dict={"op_type": "os.system", "args": ["true"]})


def test_deserialized_dataset_from_dict_and_file(tmp_path):
    import numpy as np
    import spore.dataset as ds
    pipeline = ds.NumpySlicesDataset({"x": np.arange(6) * 2}, shuffle=False).skip(0).batch(4)
    path = str(tmp_path / "pipeline.json")
    tree = ds.serialize(pipeline, path)
    for source in (tree, path):
        restored = ds.DeserializedDataset(source)
        assert isinstance(restored, ds.Dataset)
        assert restored.get_col_names() == ["x"] and restored.get_dataset_size() == 2
        got = [b[0].tolist() for b in restored.create_tuple_iterator(output_numpy=True)]
        assert got == [[0, 2, 4, 6], [8, 10]]
    import pytest
    with pytest.raises(TypeError, match="input_obj"):
        ds.DeserializedDataset(3)
