"""``POST /api/recognise/frame``, the live camera's frames (static/js/camera.js): the same reading as
``/api/recognise``, under a rate of its own (a few frames a second would spend the photo limit in
ten seconds) and a smaller body limit (a frame is a 1280 px JPEG, not a 12 MP photo)."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
from web_fixtures import make_app

from vision.synth import render_show
from web.limits import FRAME_BODY_MAX_BYTES

SHOW_SEED = 202
"""5♥ A♥ K♣ 5♠ and the K♦, which the recogniser reads (tests/e2e/test_photo.py)."""


def frame_bytes() -> bytes:
    """The show as the page sends it: 1280 x 960, JPEG."""
    photo = render_show(SHOW_SEED, harsh=False)
    ok, data = cv2.imencode(".jpg", cv2.resize(photo.image, (1280, 960)), [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return data.tobytes()


def test_a_frame_is_read_as_a_photo_is(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    client = app.test_client()
    frame = frame_bytes()
    answer = client.post("/api/recognise/frame", data={"image": (io.BytesIO(frame), "frame.jpg")})
    photo = client.post("/api/recognise", data={"image": (io.BytesIO(frame), "frame.jpg")})
    assert answer.status_code == 200 and answer.get_json() == photo.get_json()
    assert sorted(c["card"] for c in answer.get_json()["cards"]) == ["5H", "5S", "AH", "KC", "KD"]
    app.extensions["muggins.store"].close()


def test_frames_have_their_own_rate_and_a_smaller_body(tmp_path: Path) -> None:
    app = make_app(tmp_path, RATELIMIT_ENABLED=True, MUGGINS_RATE_PHOTOS="1 per minute",
                   MUGGINS_RATE_FRAMES="2 per minute")
    client = app.test_client()
    frame = frame_bytes()

    def send(path: str) -> int:
        return client.post(path, data={"image": (io.BytesIO(frame), "frame.jpg")}).status_code

    assert send("/api/recognise") == 200
    assert send("/api/recognise") == 429  # the photo allowance is spent...
    assert [send("/api/recognise/frame") for _ in range(2)] == [200, 200]  # ...the camera's is not
    refused = client.post("/api/recognise/frame", data={"image": (io.BytesIO(frame), "frame.jpg")})
    assert refused.status_code == 429
    assert "too many camera frames from this device" in refused.get_json()["error"]
    app.extensions["muggins.store"].close()

    app = make_app(tmp_path / "big")
    # The body written out by hand: the test client would spool a file this big to an unclosed temp file.
    body = (b"--b\r\nContent-Disposition: form-data; name=\"image\"; filename=\"f.jpg\"\r\n"
            b"Content-Type: image/jpeg\r\n\r\n\xff\xd8" + b"\0" * FRAME_BODY_MAX_BYTES + b"\r\n--b--\r\n")
    answer = app.test_client().post("/api/recognise/frame", data=body,
                                    content_type="multipart/form-data; boundary=b")
    assert answer.status_code == 413 and "photo too large" in answer.get_json()["error"]
    app.extensions["muggins.store"].close()
