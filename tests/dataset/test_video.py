"""dataset.vision video decoding (read_video, read_video_timestamps, DecodeVideo,
VideoDecoder) on tiny videos encoded here with PyAV; the expected values are MindSpore
2.10's on the same files (NOTE: [Video ranges] in spore/dataset/vision/video.py)."""
import numpy as np
import pytest

import spore.dataset as ds
import spore.dataset.vision as vision

av = pytest.importorskip("av")

RED = [0, 40, 80, 120, 160, 200]           # the red level of frame i (green 128)


def _encode(path, audio=True, n=6, fps=10):
    container = av.open(str(path), "w")
    video = container.add_stream("mpeg4", rate=fps)
    video.width, video.height, video.pix_fmt = 32, 24, "yuv420p"
    sound = container.add_stream("aac", rate=8000) if audio else None
    if sound is not None:
        sound.layout = "mono"
    for i in range(n):
        img = np.zeros((24, 32, 3), np.uint8)
        img[..., 0], img[..., 1], img[..., 2] = RED[i], 128, 255 - RED[i]
        for packet in video.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
            container.mux(packet)
    for packet in video.encode():
        container.mux(packet)
    if sound is not None:
        t = np.arange(8000 * n // fps)
        frame = av.AudioFrame.from_ndarray((np.sin(t / 5) * 10000).astype(np.int16)[None],
                                           format="s16", layout="mono")
        frame.sample_rate = 8000
        for packet in list(sound.encode(frame)) + list(sound.encode()):
            container.mux(packet)
    container.close()
    return str(path)


@pytest.fixture
def mp4(tmp_path):
    return _encode(tmp_path / "v.mp4")


def test_read_video_whole_file(mp4):
    video, audio, meta = vision.read_video(mp4)
    assert video.dtype == np.uint8 and video.shape == (6, 24, 32, 3)
    np.testing.assert_allclose(video[:, 0, 0, 0], RED, atol=3)     # RGB after YUV 4:2:0
    np.testing.assert_allclose(video[:, 5, 5, 1], 128, atol=3)
    assert audio.dtype == np.float32 and audio.shape == (1, 6144)    # 6 AAC frames of 1024
    assert meta == {"video_fps": 10.0, "audio_fps": 8000}


def test_read_video_ranges_in_ticks_and_seconds(mp4):
    video, audio, _ = vision.read_video(mp4, 2048, 4096)             # time base 1/10240
    np.testing.assert_allclose(video[:, 0, 0, 0], RED[2:5], atol=3)
    assert audio.shape == (1, 3072)
    same, audio2, _ = vision.read_video(mp4, 0.2, 0.4, pts_unit="sec")
    np.testing.assert_array_equal(same, video)
    assert audio2.shape == (1, 3072)
    one, audio3, _ = vision.read_video(mp4, 0.25, 0.35, pts_unit="sec")
    assert one.shape[0] == 1 and abs(int(one[0, 0, 0, 0]) - RED[3]) <= 3
    assert audio3.shape == (1, 1024)
    first, audio4, _ = vision.read_video(mp4, 0, 0)
    assert first.shape[0] == 1 and audio4.shape == (1, 1024)
    none, silent, _ = vision.read_video(mp4, 100.0, pts_unit="sec")
    assert none.shape == (0, 24, 32, 3) and silent.shape == (1, 0)
    assert vision.read_video(mp4, 2, 4)[0].shape == (0, 24, 32, 3)    # ticks, not frames


def test_read_video_without_audio(tmp_path):
    video, audio, meta = vision.read_video(_encode(tmp_path / "n.mp4", audio=False))
    assert video.shape == (6, 24, 32, 3)
    assert audio.dtype == np.float32 and audio.shape == (1, 0) and meta == {"video_fps": 10.0}


def test_read_video_timestamps(mp4):
    assert vision.read_video_timestamps(mp4) == ([0, 1024, 2048, 3072, 4096, 5120], 10.0)
    secs, fps = vision.read_video_timestamps(mp4, "sec")
    assert fps == 10.0
    assert secs == [0.0, 0.10000000149011612, 0.20000000298023224, 0.30000000447034836,
                    0.4000000059604645, 0.5000000074505806]


def test_argument_errors(mp4, tmp_path):
    with pytest.raises(ValueError, match="Not supported start_pts for -1. The start_pts should "
                                         "be >= 0."):
        vision.read_video(mp4, -1)
    with pytest.raises(ValueError, match="Not supported end_pts for 1. start_pts = 3. The "
                                         "end_pts should be >= start_pts."):
        vision.read_video(mp4, 3, 1)
    with pytest.raises(ValueError, match="Not supported pts_unit for ms"):
        vision.read_video(mp4, pts_unit="ms")
    with pytest.raises(RuntimeError, match="Not supported pts_unit for ms"):
        vision.read_video_timestamps(mp4, "ms")
    with pytest.raises(ValueError, match="does not exist"):
        vision.read_video(str(tmp_path / "missing.mp4"))
    with pytest.raises(TypeError, match="filename"):
        vision.read_video(3)
    with pytest.raises(TypeError, match="start_pts"):
        vision.read_video(mp4, "0")
    (tmp_path / "bad.mp4").write_bytes(b"not a video")
    with pytest.raises(RuntimeError, match="could not be opened"):
        vision.read_video(str(tmp_path / "bad.mp4"))


def test_decode_video_eager_and_in_a_pipeline(mp4):
    raw = np.fromfile(mp4, np.uint8)
    video, audio = vision.DecodeVideo()(raw)
    assert video.shape == (6, 24, 32, 3) and audio.shape == (1, 6144)
    data = ds.NumpySlicesDataset({"data": [raw]}, shuffle=False)
    data = data.map(vision.DecodeVideo(), input_columns=["data"],
                    output_columns=["video", "audio"])
    row = next(data.create_dict_iterator(output_numpy=True))
    np.testing.assert_array_equal(row["video"], video)
    with pytest.raises(RuntimeError, match="1-D"):
        vision.DecodeVideo()(raw.reshape(1, -1))
    with pytest.raises(RuntimeError, match="uint8"):
        vision.DecodeVideo()(raw.astype(np.int32))


def test_video_decoder_metadata_and_frames(mp4):
    decoder = vision.VideoDecoder(mp4)
    assert decoder.metadata == {"width": 32, "height": 24, "duration_seconds": 0.6,
                                "num_frames": 6, "average_fps": 10.0}
    frames = decoder.get_frames_at([5, 0, 2])
    assert frames.shape == (3, 24, 32, 3) and frames.dtype == np.uint8
    np.testing.assert_allclose(frames[:, 0, 0, 0], [RED[5], RED[0], RED[2]], atol=3)
    with pytest.raises(ValueError, match=r"not in the range \[0, 6\)"):
        decoder.get_frames_at([6])
    with pytest.raises(TypeError, match="list"):
        decoder.get_frames_at((0,))
    with pytest.raises(TypeError, match="source"):
        vision.VideoDecoder(1)


def test_plugin_is_absent_with_its_reason():
    import spore.dataset.transforms as transforms
    with pytest.raises(NotImplementedError, match="C\\+\\+ plugin interface"):
        transforms.Plugin("lib.so", "Decode")


def test_missing_pyav_names_the_extra(monkeypatch, mp4):
    import builtins
    real = builtins.__import__

    def no_av(name, *args, **kwargs):
        if name == "av":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_av)
    with pytest.raises(ImportError, match=r"pip install 'spore\[video\]'"):
        vision.read_video(mp4)
