"""YesNo, LJSpeech and SpeechCommands readers on tiny WAV files written here. Expected
values are MindSpore 2.10's on the same files (probed)."""
import wave

import numpy as np
import pytest

import spore.dataset as ds


def _wav(path, data, rate):
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(np.asarray(data, "<i2").tobytes())


def _rows(d):
    return list(d.create_tuple_iterator(output_numpy=True))


def test_yesno(tmp_path):
    _wav(tmp_path / "0_1_0_0_1_0_1_1.wav", [0, 16384, -32768, 32767], 8000)
    _wav(tmp_path / "1_1_0_0_1_0_1_0.wav", [1, 2, 3], 8000)
    d = ds.YesNoDataset(tmp_path, shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "label"]
    (wave0, rate, label), (wave1, _, label1) = _rows(d)
    assert wave0.dtype == np.float32 and wave0.shape == (1, 4)
    assert wave0.tolist() == [[0.0, 0.5000152587890625, -1.000030517578125, 1.0]]  # / 32767
    assert rate.dtype == np.int32 and int(rate) == 8000
    assert label.dtype == np.int32 and label.tolist() == [0, 1, 0, 0, 1, 0, 1, 1]
    assert label1.tolist() == [1, 1, 0, 0, 1, 0, 1, 0]


def test_ljspeech(tmp_path):
    _wav(tmp_path / "wavs/LJ001-0001.wav", [100, -100, 200], 22050)
    _wav(tmp_path / "wavs/LJ001-0002.wav", [5], 22050)
    (tmp_path / "metadata.csv").write_text(
        "LJ001-0001|Printing, in the 1st sense|Printing, in the first sense\n"
        "LJ001-0002|in being comparatively modern.|in being comparatively modern.\n")
    d = ds.LJSpeechDataset(tmp_path, shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "transcription",
                                 "normalized_transcription"]
    waveform, rate, text, normalized = _rows(d)[0]
    assert waveform.tolist() == [[0.0030518509447574615, -0.0030518509447574615,
                                  0.006103701889514923]]
    assert int(rate) == 22050 and str(text) == "Printing, in the 1st sense"
    assert str(normalized) == "Printing, in the first sense"


def test_speech_commands(tmp_path):
    for label in ("yes", "no"):
        _wav(tmp_path / label / "0a7c2a8d_nohash_0.wav", [7, 8], 16000)
        _wav(tmp_path / label / "0a7c2a8d_nohash_1.wav", [9], 16000)
    (tmp_path / "validation_list.txt").write_text("yes/0a7c2a8d_nohash_1.wav\n")
    (tmp_path / "testing_list.txt").write_text("no/0a7c2a8d_nohash_1.wav\n")
    d = ds.SpeechCommandsDataset(tmp_path, shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "label", "speaker_id",
                                 "utterance_number"]
    rows = _rows(d)
    assert [(str(r[2]), int(r[4])) for r in rows] == [("no", 0), ("no", 1), ("yes", 0),
                                                      ("yes", 1)]
    assert str(rows[0][3]) == "0a7c2a8d" and rows[0][4].dtype == np.int32
    assert [(str(r[2]), int(r[4])) for r in _rows(ds.SpeechCommandsDataset(
        tmp_path, usage="train", shuffle=False))] == [("no", 0), ("yes", 0)]
    assert [str(r[2]) for r in _rows(ds.SpeechCommandsDataset(tmp_path, "valid"))] == ["yes"]
    assert [str(r[2]) for r in _rows(ds.SpeechCommandsDataset(tmp_path, "test"))] == ["no"]
    with pytest.raises(ValueError, match="usage"):
        ds.SpeechCommandsDataset(tmp_path, "dev")


def test_cmu_arctic(tmp_path):
    root = tmp_path / "cmu_us_aew_arctic"
    _wav(root / "wav/arctic_a0001.wav", [1, 2], 16000)
    _wav(root / "wav/arctic_a0002.wav", [3], 16000)
    (root / "etc").mkdir()
    (root / "etc/txt.done.data").write_text(
        '( arctic_a0001 "Author of the danger trail." )\n'
        '( arctic_a0002 "Not at this particular case, Tom." )\n')
    d = ds.CMUArcticDataset(tmp_path, name="aew", shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "transcript", "utterance_id"]
    (waveform, rate, text, uid), second = _rows(d)
    assert waveform.tolist() == [[3.0518509447574615e-05, 6.103701889514923e-05]]
    assert rate.dtype == np.uint32 and int(rate) == 16000  # uint32 here, as in MindSpore
    assert str(text) == "Author of the danger trail." and str(uid) == "a0001"
    assert str(second[2]) == "Not at this particular case, Tom."
    with pytest.raises(ValueError, match="name"):
        ds.CMUArcticDataset(tmp_path, name="xyz")
