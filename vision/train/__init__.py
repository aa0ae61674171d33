"""Build the index classifier from scratch: `python -m vision.train`.

The modules, in the order a run uses them:

- `samples`: labelled patches from generated scenes and from whole generated table photos
  read through the recogniser's own proposal stages (`SampleSet`, `generate`, `cached`);
- `pools`: the forked worker pools that generate and calibrate;
- `models`: the perceptron ensemble and the convolutional network, trained with PyTorch and
  exported to ONNX (which ONNX Runtime runs at recognition time), and their heads' temperatures;
- `screen`: the cheap first look that turns most patches away unread, trained on the patches
  the recogniser reads in generated photos, labelled by the first perceptron;
- `calibration`: the logistic calibration of whole detections on generated photos;
- `cli`: the command line.

Training needs PyTorch and onnx (`pip install -r requirements-train.txt`); importing this
package does not.
"""

from vision.train.pools import fork_pool, worker_library
from vision.train.samples import (
    DEFAULT_MINED,
    DEFAULT_SCENES,
    MINED_NEGATIVES,
    TRAIN_SEED,
    SampleSet,
    cached,
    generate,
    mined_samples,
    scene_samples,
)

_fork_pool = fork_pool
"""The name `fork_pool` had when training was one module."""

__all__ = [
    "DEFAULT_MINED",
    "DEFAULT_SCENES",
    "MINED_NEGATIVES",
    "TRAIN_SEED",
    "SampleSet",
    "cached",
    "fork_pool",
    "generate",
    "mined_samples",
    "scene_samples",
    "worker_library",
]
