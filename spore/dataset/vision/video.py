"""Video decoding (``mindspore.dataset.vision``: ``read_video``, ``read_video_timestamps``,
``DecodeVideo``, ``VideoDecoder``) over FFmpeg through the optional PyAV package
(``pip install 'spore[video]'``); without it these raise an ImportError naming the extra.

NOTE: [Video ranges]
MindSpore's rules, probed: timestamps in seconds become stream ticks by rounding up
(``ceil(sec / time_base)``, both ends); the video frames are those whose tick lies in
``[start, end]``; the audio frames are those that end after the first chosen video frame's
time and begin by the last one's (or at any later time without ``end_pts``), kept whole (no trimming), so the audio follows the
decoder's frame sizes. Video is ``(T, H, W, 3)`` uint8 RGB; audio is
``(channels, samples)`` in the codec's sample type (int16 for 16-bit PCM, float32 for
AAC), ``(1, 0)`` float32 when the file has no audio. Timestamps in seconds are
``pts * float32(time_base)``, as MindSpore returns them.
"""
from __future__ import annotations

import io
import math
import numbers
import os
from fractions import Fraction

import numpy as np

from ..transforms.base import TensorOperation

__all__ = ["DecodeVideo", "VideoDecoder", "read_video", "read_video_timestamps"]

_SAMPLE_TYPES = {"u8": np.uint8, "s16": np.int16, "s32": np.int32, "flt": np.float32,
                 "dbl": np.float64, "s64": np.int64}


def _av():
    try:
        import av
    except ImportError:
        raise ImportError("Video decoding needs the optional package PyAV (FFmpeg): pip install "
                          "'spore[video]'.") from None
    return av


def _check_file(api, filename):
    if not isinstance(filename, str):
        raise TypeError(f"For '{api}', the argument 'filename' must be str, but got "
                        f"{type(filename)}.")
    if not os.path.exists(filename):
        raise ValueError(f"Invalid file path, {filename} does not exist.")
    if not os.path.isfile(filename):
        raise RuntimeError(f"Invalid file path, {filename} is not a regular file.")
    return filename


def _check_unit(pts_unit, error=ValueError):
    if not isinstance(pts_unit, str):
        raise TypeError(f"The argument 'pts_unit' must be str, but got {type(pts_unit)}.")
    if pts_unit not in ("pts", "sec"):
        raise error(f"Not supported pts_unit for {pts_unit}")
    return pts_unit


def _open(api, source):
    av = _av()
    try:
        return av.open(source)
    except Exception as exc:          # FFmpeg's errors: not a video, unsupported format
        raise RuntimeError(f"For '{api}', the video could not be opened: {exc}") from None


def _ticks(seconds, time_base):
    return math.ceil(seconds / float(time_base))


def _overlaps(frame, t0, t1):
    begin = float(frame.pts * frame.time_base)
    return begin + frame.samples / frame.sample_rate > t0 and begin <= t1


def _audio_array(frames, stream):
    if not frames:
        dtype = _SAMPLE_TYPES.get(stream.format.name.rstrip("p"), np.float32) if stream else \
            np.float32
        return np.zeros((1, 0), dtype)
    parts = []
    for frame in frames:
        data = frame.to_ndarray()
        if not frame.format.is_planar:      # packed: channels interleaved in one row
            data = data.reshape(-1, len(frame.layout.channels)).T
        parts.append(data)
    return np.ascontiguousarray(np.concatenate(parts, axis=1))


def _decode(api, source, start_pts=0, end_pts=None, pts_unit="pts"):
    """(video, audio, metadata) of the frames in the range (NOTE: [Video ranges])."""
    with _open(api, source) as container:
        if not container.streams.video:
            raise RuntimeError(f"For '{api}', the file has no video stream.")
        vstream = container.streams.video[0]
        astream = container.streams.audio[0] if container.streams.audio else None
        tb = vstream.time_base
        first = _ticks(float(start_pts), tb) if pts_unit == "sec" else start_pts
        last = (math.inf if end_pts is None else
                _ticks(float(end_pts), tb) if pts_unit == "sec" else end_pts)
        frames, times, audio = [], [], []
        for frame in container.decode(*([vstream] + ([astream] if astream else []))):
            if frame.pts is None:
                continue
            if isinstance(frame, _av().VideoFrame):
                if first <= frame.pts <= last:
                    frames.append(frame.to_ndarray(format="rgb24"))
                    times.append(float(frame.pts * frame.time_base))
            else:
                audio.append(frame)
        t1 = math.inf if end_pts is None else max(times, default=0.0)
        audio = [f for f in audio if times and _overlaps(f, min(times), t1)]
        video = (np.stack(frames) if frames else
                 np.zeros((0, vstream.codec_context.height, vstream.codec_context.width, 3),
                          np.uint8))
        meta = {"video_fps": float(vstream.average_rate or 0)}
        if astream is not None:
            meta["audio_fps"] = int(astream.sample_rate)
        return video, _audio_array(audio, astream), meta


def read_video(filename, start_pts=0, end_pts=None, pts_unit="pts"):
    """The video (uint8 ``(T, H, W, 3)``), audio (``(C, L)``) and metadata (``video_fps``,
    and ``audio_fps`` when there is audio) of a video file, between two timestamps
    (``pts_unit`` ``"pts"``: stream ticks, ``"sec"``: seconds), both included."""
    _check_file("read_video", filename)
    for name, value in (("start_pts", start_pts), ("end_pts", end_pts)):
        if value is not None and (isinstance(value, bool) or
                                  not isinstance(value, (numbers.Real, Fraction))):
            raise TypeError(f"The argument '{name}' must be float, Fraction or int, but got "
                            f"{type(value)}.")
    if start_pts is None:
        raise TypeError("The argument 'start_pts' must be float, Fraction or int, but got "
                        "<class 'NoneType'>.")
    if start_pts < 0:
        raise ValueError(f"Not supported start_pts for {start_pts}. The start_pts should be >= 0.")
    if end_pts is not None and end_pts < start_pts:
        raise ValueError(f"Not supported end_pts for {end_pts}. start_pts = {start_pts}. The "
                         "end_pts should be >= start_pts.")
    _check_unit(pts_unit)
    return _decode("read_video", filename, start_pts, end_pts, pts_unit)


def read_video_timestamps(filename, pts_unit="pts"):
    """The video frames' timestamps (ints in stream ticks, or float seconds) and the frame
    rate."""
    _check_file("read_video_timestamps", filename)
    _check_unit(pts_unit, RuntimeError)
    with _open("read_video_timestamps", filename) as container:
        if not container.streams.video:
            raise RuntimeError("For 'read_video_timestamps', the file has no video stream.")
        stream = container.streams.video[0]
        pts = sorted(p.pts for p in container.demux(stream) if p.pts is not None and p.size)
        fps = float(stream.average_rate or 0)
        if pts_unit == "sec":
            tick = float(np.float32(float(stream.time_base)))
            return [p * tick for p in pts], fps
        return pts, fps


class DecodeVideo(TensorOperation):
    """Decode a 1-D uint8 array of video file bytes into ``(video, audio)``: uint8
    ``(T, H, W, 3)`` frames and the ``(C, L)`` audio samples (NOTE: [Video ranges])."""

    def _run(self, arrays, rand):
        data = arrays[0]
        if data.ndim != 1:
            raise RuntimeError(f"DecodeVideo: the input must be a 1-D array of video bytes, but "
                               f"got {data.ndim} dimensions.")
        if data.dtype != np.uint8:
            raise RuntimeError(f"DecodeVideo: the input must be uint8, but got {data.dtype}.")
        if data.size == 0:
            raise RuntimeError("DecodeVideo: the input is empty.")
        video, audio, _ = _decode("DecodeVideo", io.BytesIO(data.tobytes()))
        return video, audio


class VideoDecoder:
    """A video file's ``metadata`` (width, height, duration_seconds, num_frames,
    average_fps) and its frames by index (``get_frames_at``). MindSpore runs
    ``get_frames_at`` on Ascend only; Spore decodes on the CPU."""

    def __init__(self, source):
        if not isinstance(source, str):
            raise TypeError(f"For 'VideoDecoder', the argument 'source' must be str, but got "
                            f"{type(source)}.")
        if not os.path.isfile(source):
            raise ValueError(f"For 'VideoDecoder', the file {source} does not exist or "
                             "permission is denied.")
        self.source = source
        with _open("VideoDecoder", source) as container:
            stream = container.streams.video[0]
            self._pts = sorted(p.pts for p in container.demux(stream)
                               if p.pts is not None and p.size)
            fps = float(stream.average_rate or 0)
            duration = (float(stream.duration * stream.time_base) if stream.duration else
                        (len(self._pts) / fps if fps else 0.0))
            self.metadata = {"width": stream.codec_context.width,
                             "height": stream.codec_context.height,
                             "duration_seconds": duration, "num_frames": len(self._pts),
                             "average_fps": fps}

    def get_frames_at(self, indices):
        """uint8 ``(len(indices), H, W, 3)``: the frames at these indices, in that order."""
        if not isinstance(indices, list):
            raise TypeError(f"For 'get_frames_at', 'indices' must be list, but got "
                            f"{type(indices)}.")
        n = len(self._pts)
        for i in indices:
            if isinstance(i, bool) or not isinstance(i, int):
                raise TypeError(f"For 'get_frames_at', every index must be int, but got "
                                f"{type(i)}.")
            if not 0 <= i < n:
                raise ValueError(f"For 'get_frames_at', index {i} is not in the range [0, {n}).")
        wanted = {self._pts[i] for i in indices}
        frames = {}
        with _open("VideoDecoder", self.source) as container:
            for frame in container.decode(video=0):
                if frame.pts in wanted:
                    frames[frame.pts] = frame.to_ndarray(format="rgb24")
        h, w = self.metadata["height"], self.metadata["width"]
        if not indices:
            return np.zeros((0, h, w, 3), np.uint8)
        return np.stack([frames[self._pts[i]] for i in indices])
