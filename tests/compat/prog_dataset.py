"""Dataset programs: fixed-order pipelines and the batches they produce."""
import pathlib
import tempfile

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


def collect(dataset, prefix=""):
    """Every row/batch of a dataset as numbered NumPy arrays, plus its size and columns."""
    out = {}
    for i, row in enumerate(dataset.create_dict_iterator(output_numpy=True)):
        out.update({f"{prefix}{i}/{name}": np.asarray(value) for name, value in row.items()})
    out[f"{prefix}size"] = np.array(dataset.get_dataset_size())
    out[f"{prefix}columns"] = np.array(dataset.get_col_names())
    return out


@program
def dataset_ops(ms, seed):
    rng = np.random.default_rng(seed)
    ds = ms.dataset
    x = randn(rng, 7, 2)
    y = np.arange(7, dtype=np.int32)

    def source():
        return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False)

    def python_rows():
        for i in range(5):
            yield i, float(i) / 2, np.array([i, i + 1], np.int64)

    # Python ints stay out of NumPy arithmetic on int32 rows: NumPy 1 (the reference's) would
    # widen 0-d results to int64, NumPy 2 (Spore's) keeps int32; that is NumPy, not the framework
    two = np.int32(2)

    def per_batch(xs, ys, info):
        """Columns arrive as lists of rows."""
        return [v + info.get_batch_num() for v in xs], [v * two for v in ys]

    out = {}
    pipelines = {
        "python_types": ds.GeneratorDataset(python_rows, ["a", "b", "c"], shuffle=False),
        "repeat_take_skip": source().repeat(2).skip(3).take(6),
        "project_rename": source().project(["y"]).rename(["y"], ["label"]),
        "filter": source().filter(lambda v: v % 3 != 0, input_columns=["y"]),
        "map_split_columns": source().map(lambda v: (v * two, v + two), input_columns=["y"],
                                          output_columns=["double", "next"]),
        "map_ops_list": source().map([lambda v: v + 1.0, lambda v: v * v], input_columns="x"),
        "drop_remainder": source().batch(3, drop_remainder=True),
        "per_batch_map": source().batch(4, per_batch_map=per_batch, input_columns=["x", "y"]),
        "concat": source().take(2) + source().skip(5),
        "zip": ds.zip((source().project("x"),
                       ds.NumpySlicesDataset({"z": y * 3}, shuffle=False))),
        "tuple_slices": ds.NumpySlicesDataset((x, y), column_names=["a", "b"],
                                              shuffle=False).batch(5),
    }
    for name, pipeline in pipelines.items():
        out.update(collect(pipeline, f"{name}/"))
    return out


@program
def dataset_transforms(ms, seed):
    rng = np.random.default_rng(seed)
    ds = ms.dataset
    transforms, vision = ds.transforms, ds.vision
    images = rng.integers(0, 256, (3, 6, 5, 3)).astype(np.uint8)
    labels = np.array([0, 2, 1], np.int32)

    def source():
        return ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False)

    image_ops = {
        "rescale_hwc2chw": [vision.Rescale(1.0 / 255, -0.5), vision.HWC2CHW()],
        "normalize": [vision.Normalize([120.0, 110.0, 100.0], [50.0, 60.0, 70.0])],
        "resize_bilinear": [vision.Resize((4, 7))],
        "resize_nearest": [vision.Resize((9, 3), vision.Inter.NEAREST)],
        "resize_float": [vision.Rescale(1.0 / 255, 0.0), vision.Resize((4, 3))],
        "resize_short_side": [vision.Resize(4)],
        "center_crop": [vision.CenterCrop((3, 2))],
        "crop": [vision.Crop((1, 2), (3, 3))],
        "pad_edge": [vision.Pad((1, 2), padding_mode=vision.Border.EDGE)],
        "pad_fill": [vision.Pad((1, 0, 2, 1), fill_value=(10, 20, 30))],
        "flips": [vision.HorizontalFlip(), vision.VerticalFlip()],
        "to_tensor": [vision.ToTensor()],
        "to_type": [vision.ToType(np.int16)],
    }
    label_ops = {
        "one_hot": [transforms.OneHot(3)],
        "one_hot_smoothing": [transforms.TypeCast(ms.int64), transforms.OneHot(3, 0.1)],
        "type_cast": [transforms.TypeCast(ms.float16)],
        "fill": [transforms.Fill(7)],
        "mask": [transforms.Mask(transforms.Relational.GE, 1)],
    }
    out = {}
    for name, ops in image_ops.items():
        out.update(collect(source().map(ops, input_columns="image"), f"{name}/"))
    for name, ops in label_ops.items():
        out.update(collect(source().map(ops, input_columns="label").project("label"),
                           f"{name}/"))
    return out


def write_mnist(directory, images, labels, prefix):
    """The raw IDX files MnistDataset reads (big-endian headers, then uint8 data)."""
    with open(directory / f"{prefix}-images-idx3-ubyte", "wb") as f:
        f.write(np.array([2051, len(images), 28, 28], ">u4").tobytes() + images.tobytes())
    with open(directory / f"{prefix}-labels-idx1-ubyte", "wb") as f:
        f.write(np.array([2049, len(labels)], ">u4").tobytes() + labels.tobytes())


def write_image_folder(directory, images):
    """Class folders of PNG files for ImageFolderDataset."""
    from PIL import Image
    for k, image in enumerate(images):
        folder = directory / ("cat" if k % 2 else "dog")
        folder.mkdir(exist_ok=True)
        Image.fromarray(image).save(folder / f"{k}.png")


@program
def dataset_readers(ms, seed):
    """MNIST and ImageFolder read in file order (CIFAR-10 is left out: MindSpore 2.10 reads
    only files of exactly 10000 records)."""
    rng = np.random.default_rng(seed)
    ds, vision = ms.dataset, ms.dataset.vision
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "mnist").mkdir()
        write_mnist(root / "mnist", rng.integers(0, 256, (5, 28, 28), np.uint8),
                    rng.integers(0, 10, 5).astype(np.uint8), "train")
        write_mnist(root / "mnist", rng.integers(0, 256, (3, 28, 28), np.uint8),
                    rng.integers(0, 10, 3).astype(np.uint8), "t10k")
        mnist = ds.MnistDataset(str(root / "mnist"), usage="all", shuffle=False)
        mnist = mnist.map([vision.Rescale(1 / 255, 0), vision.HWC2CHW()], "image").batch(3)
        out.update(collect(mnist, "mnist/"))
        (root / "folder").mkdir()
        write_image_folder(root / "folder", rng.integers(0, 256, (4, 5, 6, 3), np.uint8))
        folder = ds.ImageFolderDataset(str(root / "folder"), shuffle=False, decode=True)
        out.update(collect(folder, "image_folder/"))
    return out


@program
def vision_adjust(ms, seed):
    """Pixel and layout transforms called eagerly on a uint8 and a float image."""
    rng = np.random.default_rng(seed)
    vision = ms.dataset.vision
    img = rng.integers(0, 256, (6, 7, 3)).astype(np.uint8)
    flt = img.astype(np.float32) / 255
    rgba = np.concatenate([img, img[..., :1]], axis=-1)
    cases = {
        "invert": (vision.Invert(), img), "invert_float": (vision.Invert(), flt),
        "posterize": (vision.Posterize(3), img), "solarize": (vision.Solarize(100), img),
        "solarize_range": (vision.Solarize((50, 150)), img),
        "solarize_float": (vision.Solarize(0.5), flt),
        "brightness": (vision.AdjustBrightness(1.3), img),
        "brightness_float": (vision.AdjustBrightness(1.3), flt),
        "contrast": (vision.AdjustContrast(0.7), img),
        "contrast_float": (vision.AdjustContrast(0.7), flt),
        "saturation": (vision.AdjustSaturation(1.5), img),
        "saturation_float": (vision.AdjustSaturation(0.4), flt),
        "rgb2gray": (vision.ConvertColor(vision.ConvertMode.COLOR_RGB2GRAY), img),
        "bgr2gray": (vision.ConvertColor(vision.ConvertMode.COLOR_BGR2GRAY), img),
        "rgb2bgr": (vision.ConvertColor(vision.ConvertMode.COLOR_RGB2BGR), img),
        "rgb2rgba": (vision.ConvertColor(vision.ConvertMode.COLOR_RGB2RGBA), img),
        "rgba2gray": (vision.ConvertColor(vision.ConvertMode.COLOR_RGBA2GRAY), rgba),
        "rgba2bgr": (vision.ConvertColor(vision.ConvertMode.COLOR_RGBA2BGR), rgba),
        "erase": (vision.Erase(1, 2, 3, 2, value=(10, 20, 30)), img),
        "erase_float": (vision.Erase(0, 1, 2, 5), flt),
        "pad_to_size": (vision.PadToSize((8, 10), offset=(1, 2), fill_value=5), img),
        "pad_to_size_center_reflect": (vision.PadToSize(9, padding_mode=vision.Border.REFLECT),
                                       img),
        "normalize_pad": (vision.NormalizePad((100.0, 110.0, 120.0), (50.0, 60.0, 70.0)), img),
        "resized_crop": (vision.ResizedCrop(1, 1, 5, 6, (3, 4)), img),
        "resized_crop_nearest": (vision.ResizedCrop(0, 2, 5, 3, 4, vision.Inter.NEAREST), img),
        "to_numpy": (vision.ToNumpy(), img),
    }
    out = {name: np.asarray(op(image)) for name, (op, image) in cases.items()}
    out["image_size"] = np.array(vision.get_image_size(img))
    out["num_channels"] = np.array(vision.get_image_num_channels(img))
    return out
