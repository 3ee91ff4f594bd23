"""The rows of the golden MindRecord files (closed-form, so tests recompute them), shared by
``make_golden_mindrecord.py`` (run on the reference MindSpore) and the tests."""
import numpy as np

HEADER_SIZE, PAGE_SIZE = 1 << 14, 1 << 15

MIXED_SCHEMA = {"a32": {"type": "int32", "shape": [-1]}, "a64": {"type": "int64", "shape": [-1]},
                "mat": {"type": "float32", "shape": [2, 3]},
                "f64": {"type": "float64", "shape": [-1]}, "n": {"type": "int64"},
                "s": {"type": "string"}, "f": {"type": "float32"}, "d": {"type": "float64"},
                "label": {"type": "int32"}}

IMAGE_SCHEMA = {"image": {"type": "bytes"}, "label": {"type": "int32"},
                "file_name": {"type": "string"}}


def mixed_rows():
    """Integer arrays across every compressed width, floats exact and inexact in float32,
    large and negative scalars, unicode and empty strings."""
    return [
        {"a32": np.array([-1, 200], np.int32), "a64": np.array([70000, -2 ** 40, 5], np.int64),
         "mat": np.arange(6, dtype=np.float32).reshape(2, 3) / 4, "f64": np.array([0.1, -2.0]),
         "n": 2 ** 40, "s": "héllo", "f": 0.1, "d": 0.1, "label": 0},
        {"a32": np.array([127, -128, 128, -129, 32767, -32768, 32768], np.int32),
         "a64": np.array([2 ** 31, -2 ** 31 - 1], np.int64),
         "mat": -np.arange(6, dtype=np.float32).reshape(2, 3), "f64": np.array([1e300]),
         "n": -5, "s": "", "f": -1.5, "d": 2.5, "label": 1},
        {"a32": np.array([0], np.int32), "a64": np.array([-33, 300, -70000], np.int64),
         "mat": np.full((2, 3), 7.25, np.float32), "f64": np.array([np.pi, np.e, -0.0]),
         "n": 123456, "s": "a longer string of more than thirty-one bytes", "f": 3.0,
         "d": -1e-5, "label": 1},
    ]


def image_rows():
    """Six rows split over two shards by two write_raw_data calls (4 + 2 rows)."""
    return [{"image": bytes([i + 1]) * (5 + i), "label": i % 3, "file_name": f"img{i}.jpg"}
            for i in range(6)]
