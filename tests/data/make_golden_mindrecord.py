"""Writes the golden MindRecord files in this folder with the reference MindSpore 2.10.

Run from outside the repository (MindSpore must not see Spore's sources):
    cd /tmp && /work/msref/bin/python /work/main/tests/data/make_golden_mindrecord.py \
        /work/main/tests/data
The rows are closed-form (``golden_mindrecord.py`` beside this file), so tests recompute them.
"""
import os
import sys

from mindspore.mindrecord import FileWriter

from golden_mindrecord import (HEADER_SIZE, IMAGE_SCHEMA, MIXED_SCHEMA, PAGE_SIZE,  # noqa: E402
                               image_rows, mixed_rows)


def writer(path, shards=1):
    w = FileWriter(path, shard_num=shards, overwrite=True)
    w.set_header_size(HEADER_SIZE)
    w.set_page_size(PAGE_SIZE)
    return w


def main(out_dir):
    w = writer(os.path.join(out_dir, "golden_mixed.mindrecord"))
    w.add_schema(MIXED_SCHEMA, "mixed")
    w.write_raw_data(mixed_rows())
    w.commit()
    w = writer(os.path.join(out_dir, "golden_images.mindrecord"), shards=2)
    w.add_schema(IMAGE_SCHEMA, "images")
    w.add_index(["file_name", "label"])
    rows = image_rows()
    w.write_raw_data(rows[:4])
    w.write_raw_data(rows[4:])
    w.commit()


if __name__ == "__main__":
    main(sys.argv[1])
