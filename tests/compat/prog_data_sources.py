"""Dataset programs written the way MindSpore's tutorials use the APIs: an MNIST folder read
without ``usage``, GeneratorDataset over iterator classes and random-access sources with
user samplers, dict columns, the text pipeline of a sentiment model, CSV / text / CIFAR-100
files and shards. Every order is fixed (shuffle=False), so both frameworks give the same
rows."""
import pathlib
import tempfile

import numpy as np

from ._helpers import program


def collect(dataset, prefix=""):
    """Every row of a dataset as numbered NumPy arrays (dict columns flattened by key)."""
    out = {}
    for i, row in enumerate(dataset.create_dict_iterator(num_epochs=1, output_numpy=True)):
        for name, value in row.items():
            if isinstance(value, dict):
                out.update({f"{prefix}{i}/{name}.{key}": np.asarray(v)
                            for key, v in value.items()})
            else:
                out[f"{prefix}{i}/{name}"] = np.asarray(value)
    out[f"{prefix}size"] = np.array(dataset.get_dataset_size())
    out[f"{prefix}columns"] = np.array(dataset.get_col_names())
    return out


def write_idx(path, magic, array):
    header = np.array([magic, len(array), *array.shape[1:]], ">u4").tobytes()
    path.write_bytes(header + array.astype(np.uint8).tobytes())


@program
def mnist_train_folder(ms, seed):
    """The quick-start tutorial: MnistDataset("MNIST_Data/train") holds only the train files."""
    rng = np.random.default_rng(seed)
    ds, vision, transforms = ms.dataset, ms.dataset.vision, ms.dataset.transforms
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        train = pathlib.Path(tmp) / "MNIST_Data" / "train"
        train.mkdir(parents=True)
        write_idx(train / "train-images-idx3-ubyte", 2051,
                  rng.integers(0, 256, (6, 28, 28), np.uint8))
        write_idx(train / "train-labels-idx1-ubyte", 2049, rng.integers(0, 10, 6))
        data = ds.MnistDataset(str(train), shuffle=False)
        data = data.map([vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,),
                                                                          std=(0.3081,)),
                         vision.HWC2CHW()], "image")
        data = data.map(transforms.TypeCast(ms.int32), "label").batch(4)
        out.update(collect(data, "mnist/"))
        fashion = ds.FashionMnistDataset(str(train), usage="train", shuffle=False,
                                         num_shards=4, shard_id=3)
        out.update(collect(fashion.project("label"), "fashion_shard/"))
    return out


class Counter:
    """An iterable dataset class: __iter__ restarts, __next__ gives the rows."""

    def __init__(self, n):
        self.n, self.i = n, 0

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i >= self.n:
            raise StopIteration
        self.i += 1
        return np.array([self.i, self.i * 2], np.float32), np.int32(self.i % 2)

    def __len__(self):
        return self.n


class Table:
    """A random-access dataset class."""

    def __init__(self, n):
        self.data = np.arange(n * 2, dtype=np.float32).reshape(n, 2)

    def __getitem__(self, index):
        return self.data[index], np.int64(index)

    def __len__(self):
        return len(self.data)


class EvenIndices:
    """A user sampler that is only an iterable (no Sampler base class)."""

    def __iter__(self):
        return iter([6, 4, 2, 0])


@program
def generator_sources(ms, seed):
    ds = ms.dataset
    out = {}
    counter = ds.GeneratorDataset(Counter(5), ["data", "label"])
    iterator = counter.create_dict_iterator(num_epochs=2, output_numpy=True)
    for epoch in range(2):
        for i, row in enumerate(iterator):
            out.update({f"counter/epoch{epoch}/{i}/{k}": v for k, v in row.items()})
    out.update(collect(ds.GeneratorDataset(Table(8), ["data", "index"], sampler=[5, 1, 3]),
                       "list_sampler/"))
    out.update(collect(ds.GeneratorDataset(Table(8), ["data", "index"], sampler=EvenIndices()),
                       "iterable_sampler/"))
    out.update(collect(ds.GeneratorDataset(Table(8), ["data", "index"],
                                           sampler=ds.SequentialSampler(2, 3)),
                       "sequential/"))
    out.update(collect(ds.GeneratorDataset(Table(7), ["data", "index"], shuffle=False,
                                           num_shards=3, shard_id=1), "shard/"))
    return out


def python_objects():
    for i in range(5):
        yield {"number": i, "square": i ** 2, "name": f"row{i}"}, i


@program
def dict_columns(ms, seed):
    """The "Python objects in the pipeline" tutorial: dicts through map and batch."""
    ds = ms.dataset
    out = {}
    data = ds.GeneratorDataset(python_objects, ["col1", "col2"], shuffle=False)
    out.update(collect(data, "rows/"))
    types = data.output_types()
    out["rows/types"] = np.array([str(t) for t in types])
    doubled = ds.GeneratorDataset(python_objects, ["col1", "col2"], shuffle=False)
    doubled = doubled.map(lambda d: {"twice": d["number"] * 2, "square": d["square"]},
                          input_columns="col1")
    out.update(collect(doubled, "mapped/"))
    batched = ds.GeneratorDataset(python_objects, ["col1", "col2"], shuffle=False)
    batched = batched.map(lambda d: {"number": d["number"], "square": d["square"]},
                          input_columns="col1").batch(2)
    out.update(collect(batched, "batched/"))
    made = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False)
    made = made.batch(2, per_batch_map=lambda x, info: {"sum": np.sum(x)}, input_columns="x")
    out.update(collect(made, "per_batch_map/"))
    return out


REVIEWS = [("A wonderful movie, truly great!", 1), ("Bad plot. Bad acting; a waste.", 0),
           ("great cast and a great story", 1), ("not good", 0)]


@program
def text_pipeline(ms, seed):
    """The IMDB sentiment tutorial's vocabulary, lookup and padding, plus the other text ops."""
    ds, text, transforms = ms.dataset, ms.dataset.text, ms.dataset.transforms
    out = {}

    def reviews():
        for line, label in REVIEWS:
            yield line, label

    tokens = ds.GeneratorDataset(reviews, ["text", "label"], shuffle=False)
    tokens = tokens.map(text.BasicTokenizer(lower_case=True), "text")
    vocab = text.Vocab.from_dataset(tokens, columns=["text"], special_tokens=["<pad>", "<unk>"])
    words = sorted(vocab.vocab().items(), key=lambda item: item[1])
    out["vocab/tokens"] = np.array([w for w, _ in words])
    out["vocab/ids"] = np.array([i for _, i in words])
    small = text.Vocab.from_list(["great", "bad", "movie", "good"], special_tokens=["<unk>",
                                                                                   "<pad>"],
                                 special_first=False)
    out["small/ids"] = np.array(small.tokens_to_ids(["movie", "zzz", "<pad>"]))
    out["small/tokens"] = np.array(small.ids_to_tokens([0, 4, 5]))
    pad = small.tokens_to_ids("<pad>")
    data = ds.GeneratorDataset(reviews, ["text", "label"], shuffle=False)
    data = data.map(text.WhitespaceTokenizer(), "text")
    data = data.map([text.Lookup(small, unknown_token="<unk>"), text.Truncate(5),
                     transforms.PadEnd([5], pad_value=pad)], "text")
    data = data.map(transforms.TypeCast(ms.float32), "label").batch(2)
    out.update(collect(data, "ids/"))
    line = "Hello, World! I'm HERE 中国 naïve"
    out["basic"] = text.BasicTokenizer()(line)
    out["basic_lower"] = text.BasicTokenizer(lower_case=True)(line)
    for k, v in enumerate(text.WhitespaceTokenizer(with_offsets=True)("né  x y")):
        out[f"whitespace_offsets/{k}"] = v
    out["regex"] = text.RegexTokenizer(r"[,.]", r"[,.]")("hi,there.x")
    out["unicode_char"] = text.UnicodeCharTokenizer()("ab c")
    out["to_number"] = text.ToNumber(ms.float32)(np.array(["1.5", "-2", "3e2"]))
    out["sliding"] = text.SlidingWindow(3, 0)(np.array([1, 2, 3, 4, 5]))
    out["ngram"] = text.Ngram([2, 3])(np.array(["a", "b", "c", "d"]))
    out["case_fold"] = text.CaseFold()("Straße ABC")
    out["regex_replace"] = text.RegexReplace(r"\s+", " ")("a   b \t c")
    pair = text.TruncateSequencePair(4)(np.array([1, 2, 3, 4]), np.array([5, 6]))
    out.update({f"pair/{k}": v for k, v in enumerate(pair)})
    return out


@program
def text_files(ms, seed):
    """CSVDataset, TextFileDataset and Cifar100Dataset on small files."""
    rng = np.random.default_rng(seed)
    ds = ms.dataset
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "b.csv").write_text("id,score,name\n4,0.25,dd\n5,1.5,\"e,e\"\n")
        (root / "a.csv").write_text("id,score,name\n1,2.5,aa\n2,3.75,bb\n3,-1,cc\n")
        files = [str(root / "b.csv"), str(root / "a.csv")]
        # one reader: the files one after the other (more readers interleave their rows,
        # tested in tests/dataset; the worker count may not exceed the machine's CPUs)
        typed = ds.CSVDataset(files, column_defaults=[0, 0.0, ""], shuffle=False,
                              num_parallel_workers=1)
        out.update(collect(typed, "csv/"))
        out.update(collect(ds.CSVDataset(str(root / "a.csv"), shuffle=False,
                                         num_parallel_workers=1), "csv_strings/"))
        for k in range(2):
            shard = ds.CSVDataset(files, column_defaults=[0, 0.0, ""], shuffle=False,
                                  num_shards=2, shard_id=k, num_parallel_workers=1)
            out.update(collect(shard.project("id"), f"csv_shard{k}/"))
        (root / "x.txt").write_text("first line\nsecond line\n\nthird\n")
        (root / "y.txt").write_text("other file\nlast one")
        lines = ds.TextFileDataset(str(root / "*.txt"), shuffle=False, num_parallel_workers=1)
        out.update(collect(lines, "lines/"))
        for k in range(3):
            shard = ds.TextFileDataset([str(root / "x.txt"), str(root / "y.txt")],
                                       shuffle=False, num_shards=3, shard_id=k,
                                       num_parallel_workers=1)
            out.update(collect(shard, f"lines_shard{k}/"))
        # CIFAR-100: MindSpore reads train.bin in blocks of 50000 records, test.bin 10000
        cifar = root / "cifar100"
        cifar.mkdir()
        records = np.zeros((10000, 2 + 3072), np.uint8)
        records[:, 0] = np.arange(10000) % 20
        records[:, 1] = np.arange(10000) % 100
        records[:, 2:] = rng.integers(0, 256, (1, 3072), np.uint8)
        records[:, 2] = np.arange(10000) % 251
        records.tofile(cifar / "test.bin")
        data = ds.Cifar100Dataset(str(cifar), usage="test", shuffle=False, num_samples=3)
        out.update(collect(data, "cifar100/"))
        every = ds.Cifar100Dataset(str(cifar), shuffle=False, num_shards=4000, shard_id=7)
        out.update(collect(every.project(["coarse_label", "fine_label"]), "cifar100_shard/"))
    return out
