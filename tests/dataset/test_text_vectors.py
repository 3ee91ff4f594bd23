"""Word vectors (Vectors, GloVe, FastText, CharNGram) and ToVectors, on small files in the
published formats; expected values are MindSpore 2.10's (probed)."""
import numpy as np
import pytest

from spore.dataset import text

LINES = "the 0.1 0.2 0.3\ncat 1.0 -1.0 0.5\nDog 2 3 4\n"


@pytest.fixture
def vec_file(tmp_path):
    path = tmp_path / "vec.txt"
    path.write_text(LINES)
    return str(path)


def test_vectors_and_to_vectors(vec_file):
    vectors = text.Vectors.from_file(vec_file)
    out = text.ToVectors(vectors)(np.array(["the", "cat", "dog", "zzz"]))
    assert out.dtype == np.float32 and out.shape == (4, 3)
    np.testing.assert_array_equal(out, np.array([[0.1, 0.2, 0.3], [1, -1, 0.5], [0, 0, 0],
                                                 [0, 0, 0]], np.float32))
    out = text.ToVectors(vectors, unk_init=[9, 9, 9], lower_case_backup=True)(
        np.array(["The", "DOG", "zzz"]))
    assert out.tolist()[1:] == [[9, 9, 9], [9, 9, 9]]  # 'dog' is not 'Dog'
    np.testing.assert_array_equal(out[0], np.float32([0.1, 0.2, 0.3]))
    assert text.ToVectors(vectors)(np.array("cat")).tolist() == [1.0, -1.0, 0.5]
    first_two = text.Vectors.from_file(vec_file, max_vectors=2)
    assert text.ToVectors(first_two)(np.array(["Dog", "cat"])).tolist() == \
        [[0, 0, 0], [1, -1, 0.5]]
    with pytest.raises(ValueError, match="unk_init"):
        text.ToVectors(vectors, unk_init=[1, 2])


def test_glove_fasttext_charngram_files(tmp_path, vec_file):
    glove = tmp_path / "glove.6B.3d.txt"
    glove.write_text(LINES)
    assert text.ToVectors(text.GloVe.from_file(str(glove)))(np.array(["cat"])).tolist() == \
        [[1.0, -1.0, 0.5]]
    with pytest.raises(RuntimeError, match=r"glove\.6B\.\*\.txt"):
        text.GloVe.from_file(vec_file)
    fasttext = tmp_path / "wiki.vec"
    fasttext.write_text("3 3\n" + LINES)
    assert text.ToVectors(text.FastText.from_file(str(fasttext)))(np.array(["cat"])).tolist() \
        == [[1.0, -1.0, 0.5]]
    with pytest.raises(RuntimeError, match=r"\*\.vec"):
        text.FastText.from_file(vec_file)
    grams = tmp_path / "charNgram.txt"
    grams.write_text("1gram-the 0.1 0.2 0.3\n2gram-#BEGIN#t 1 2 3\n2gram-he 3 4 5\n")
    vectors = text.CharNGram.from_file(str(grams))
    out = text.ToVectors(vectors)(np.array(["t", "the", "x"]))
    assert out.tolist() == [[1, 2, 3], [2, 3, 4], [0, 0, 0]]  # the mean of the n-grams found
