"""The networks, trained with PyTorch and exported to ONNX, which ONNX Runtime runs at
recognition time (neither PyTorch nor onnx is a runtime dependency: `pip install -r
requirements-train.txt` for training only).

- An ensemble of perceptrons over the patches' hand-made features (`classify.features_of_maps`):
  the features normalised, two ReLU layers with dropout, and two softmax heads (rank, suit),
  trained alike from different starting weights. Their weights are stored as float16.
- A small convolutional network over the patches' ink maps, with the same two heads.

The temperatures of each network's heads are fitted on held-out samples, read through ONNX Runtime
as the recogniser reads them, so that the probabilities are calibrated.
"""

from __future__ import annotations

import importlib
import io
import itertools
import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from vision.classify import NONE_RANK, NONE_SUIT, ConvNet, IndexModel, Network, OnnxNetwork, softmax
from vision.geometry import PATCH_HEIGHT_PX, PATCH_WIDTH_PX
from vision.train.samples import SampleSet

DEFAULT_NETWORKS = 3
"""Networks in the ensemble. On generated development shows (not the evaluation seeds)
averaging two networks lifted the exact-photo rate from 87 % to 91 % and three to 93 %; each
costs a few minutes to train, 1.7 MB on disk and some milliseconds per photo (the features
are computed once)."""

NETWORK_SEED_STEP = 7_919
"""Offset between the starting-weight seeds of the ensemble's networks."""

MLP_EPOCHS = 14
"""Passes of each perceptron over the training samples."""

MLP_HIDDEN = (384, 192)
"""Units of the perceptrons' two ReLU layers."""

DROPOUT = 0.3
"""Share of hidden units silenced per training step; without it the net memorises the decks."""

CONV_EPOCHS = 6
"""Passes of the convolutional network over the training patches (about 2 minutes each on 2
cores); held-out accuracy on index patches was still rising at 6, by 0.3 points an epoch."""

CONV_LAYERS = ((2, 16), (16, 32), (32, 64))
"""(input, output) channels of its three 3x3 convolutions, each followed by ReLU and a 2x2 max
pool; then a dropout, a 128-unit ReLU layer and the two heads."""

CONV_HIDDEN = 128
CONV_DROPOUT = 0.2

HEADS = NONE_RANK + 1 + NONE_SUIT + 1
"""Outputs of every network: the rank logits (13 ranks and "no index"), then the suit logits."""


def torch_module() -> Any:
    """PyTorch, imported only for training (neither it nor onnx, which its export needs, is a
    runtime dependency)."""
    try:
        importlib.import_module("onnx")
        return importlib.import_module("torch")
    except ModuleNotFoundError:
        raise SystemExit(
            "training the networks needs PyTorch and onnx: pip install -r requirements-train.txt"
        ) from None


def perceptron(
    features: int, mean: NDArray[np.float32], scale: NDArray[np.float32], rng: np.random.Generator
) -> Any:
    """An untrained perceptron as a torch module: (features - mean) / scale, then `MLP_HIDDEN`
    ReLU layers, then the two heads (`HEADS` outputs). Starting weights are He-normal, drawn from
    `rng` layer by layer as (inputs, outputs) matrices, and biases zero.

    Dropout is not a layer: training passes `forward` the masks to apply (drawn from the numpy
    generator that also orders the batches, so that a run is fixed by one seed), and the
    exported graph, called with the features alone, has none."""
    torch = torch_module()
    nn = torch.nn

    module: Any = nn.Module

    class Perceptron(module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("mean", torch.from_numpy(np.asarray(mean, np.float32)))
            self.register_buffer("scale", torch.from_numpy(np.asarray(scale, np.float32)))
            sizes = [features, *MLP_HIDDEN, HEADS]
            self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(sizes))
            with torch.no_grad():
                for layer, (a, b) in zip(self.layers, itertools.pairwise(sizes), strict=True):
                    weight = (rng.standard_normal((a, b)) * math.sqrt(2.0 / a)).astype(np.float32)
                    layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(weight.T)))
                    layer.bias.zero_()

        def forward(self, x: Any, masks: Sequence[Any] = ()) -> Any:
            x = (x - self.mean) / self.scale
            for i, layer in enumerate(self.layers[:-1]):
                x = torch.relu(layer(x))
                if masks:
                    x = x * masks[i]
            return self.layers[-1](x)

    return Perceptron()


def train_network(
    train: SampleSet,
    seed: int,
    epochs: int = MLP_EPOCHS,
    batch: int = 256,
    learning_rate: float = 2e-3,
    weight_decay: float = 1e-4,
    log: bool = True,
) -> Network:
    """Fit one perceptron (uncalibrated: temperatures 1) to `train`, from starting weights
    `seed`, and export it to ONNX with float16 weights.

    AdamW (weight decay on the weight matrices, not the biases), the learning rate decayed on a
    cosine per step, dropout `DROPOUT` after each hidden layer, the two heads' cross-entropies
    summed. One numpy generator seeded `seed` draws, in this order, the starting weights, then
    per epoch the batch order and per batch the dropout masks: the same streams, and so the
    same run up to float rounding, as the numpy trainer this replaced."""
    torch = torch_module()
    rng = np.random.default_rng(seed)
    mean = train.features.mean(axis=0)
    scale = train.features.std(axis=0) + 1e-3
    net = perceptron(train.features.shape[1], mean, scale, rng)
    weights = [layer.weight for layer in net.layers]
    biases = [layer.bias for layer in net.layers]
    optimiser = torch.optim.AdamW(
        [{"params": weights, "weight_decay": weight_decay}, {"params": biases, "weight_decay": 0.0}],
        learning_rate,
    )
    features, ranks, suits = (torch.from_numpy(a) for a in (train.features, train.ranks, train.suits))
    cross_entropy = torch.nn.functional.cross_entropy
    split = NONE_RANK + 1
    n = len(train.ranks)
    steps = epochs * math.ceil(n / batch)
    keep = np.float32(1.0 - DROPOUT)
    step = 0
    net.train()
    for epoch in range(epochs):
        started = time.perf_counter()
        order = torch.from_numpy(rng.permutation(n))
        total_loss = 0.0
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            masks = [
                torch.from_numpy((rng.random((len(idx), units), dtype=np.float32) >= DROPOUT) / keep)
                for units in MLP_HIDDEN
            ]
            out = net(features[idx], masks)
            loss = cross_entropy(out[:, :split], ranks[idx]) + cross_entropy(out[:, split:], suits[idx])
            optimiser.zero_grad()
            loss.backward()
            step += 1
            for group in optimiser.param_groups:
                group["lr"] = learning_rate * 0.5 * (1 + math.cos(math.pi * step / steps))
            optimiser.step()
            total_loss += float(loss.item()) * len(idx)
        if log:
            seconds = time.perf_counter() - started
            print(f"  epoch {epoch + 1}/{epochs}: loss {total_loss / n:.4f} ({seconds:.0f} s)", flush=True)
    net.eval()
    return Network(export_onnx(torch, net, (1, train.features.shape[1]), "features", half=True))


def train_conv(
    train: SampleSet,
    validation: SampleSet,
    seed: int,
    epochs: int = CONV_EPOCHS,
    batch: int = 256,
    log: bool = True,
) -> ConvNet:
    """Fit the convolutional network to `train` (AdamW, one-cycle learning rate), export it as
    ONNX and fit its heads' temperatures on `validation`, read through ONNX Runtime as the
    recogniser reads it."""
    torch = torch_module()
    nn = torch.nn
    torch.manual_seed(seed)
    layers: list[Any] = []
    for channels_in, channels_out in CONV_LAYERS:
        layers += [nn.Conv2d(channels_in, channels_out, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
    flat = CONV_LAYERS[-1][1] * (PATCH_HEIGHT_PX // 8) * (PATCH_WIDTH_PX // 8)
    net = nn.Sequential(
        *layers,
        nn.Flatten(),
        nn.Dropout(CONV_DROPOUT),
        nn.Linear(flat, CONV_HIDDEN),
        nn.ReLU(),
        nn.Linear(CONV_HIDDEN, HEADS),
    )
    optimiser = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, 3e-3, total_steps=epochs * math.ceil(len(train.ranks) / batch)
    )
    maps = torch.from_numpy(train.maps)
    ranks, suits = torch.from_numpy(train.ranks), torch.from_numpy(train.suits)
    _fit(torch, net, maps, ranks, suits, optimiser, schedule, epochs, batch, seed, log, scale=1 / 255.0)
    conv = ConvNet(export_onnx(torch, net, (1, 2, PATCH_HEIGHT_PX, PATCH_WIDTH_PX), "maps"))
    return calibrate_heads(conv, validation)


def _fit(
    torch: Any,
    net: Any,
    inputs: Any,
    ranks: Any,
    suits: Any,
    optimiser: Any,
    schedule: Any,
    epochs: int,
    batch: int,
    seed: int,
    log: bool,
    scale: float | None = None,
) -> None:
    """Minimise the two heads' summed cross-entropy over shuffled mini-batches (one learning-rate
    step per batch); `scale` multiplies stored inputs (uint8 maps) into floats."""
    generator = torch.Generator().manual_seed(seed)
    cross_entropy = torch.nn.functional.cross_entropy
    split = NONE_RANK + 1
    net.train()
    for epoch in range(epochs):
        started = time.perf_counter()
        order = torch.randperm(len(ranks), generator=generator)
        total_loss = 0.0
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            x = inputs[idx].float() * scale if scale is not None else inputs[idx]
            out = net(x)
            loss = cross_entropy(out[:, :split], ranks[idx]) + cross_entropy(out[:, split:], suits[idx])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total_loss += float(loss.item()) * len(idx)
        if log:
            seconds = time.perf_counter() - started
            print(
                f"  epoch {epoch + 1}/{epochs}: loss {total_loss / len(ranks):.4f} ({seconds:.0f} s)",
                flush=True,
            )
    net.eval()


def export_onnx(torch: Any, net: Any, shape: tuple[int, ...], name: str, half: bool = False) -> bytes:
    """`net` (in eval mode) as ONNX bytes with a batch axis named "patches" on input `name`;
    `half` stores its weight matrices as float16, cast back to float32 when ONNX Runtime loads
    the graph (half the bytes; it still computes in float32)."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        # The TorchScript exporter is deprecated in favour of torch.export, which needs the
        # onnxscript package too; it still writes these plain layer stacks exactly.
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            net,
            torch.zeros(shape),
            buffer,
            dynamo=False,
            input_names=[name],
            dynamic_axes={name: {0: "patches"}},
        )
    if not half:
        return without_subnormals(buffer.getvalue())
    onnx = importlib.import_module("onnx")
    graph_model = onnx.load_from_string(buffer.getvalue())
    graph = graph_model.graph
    casts = []
    for initializer in list(graph.initializer):
        array = onnx.numpy_helper.to_array(initializer)
        if array.ndim == 2:  # weight matrices; biases, mean and scale stay float32
            graph.initializer.remove(initializer)
            graph.initializer.append(
                onnx.numpy_helper.from_array(array.astype(np.float16), f"{initializer.name}_half")
            )
            casts.append(
                onnx.helper.make_node(
                    "Cast", [f"{initializer.name}_half"], [initializer.name], to=onnx.TensorProto.FLOAT
                )
            )
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend(casts + nodes)
    _zero_subnormals(onnx, graph)
    onnx.checker.check_model(graph_model)
    return bytes(graph_model.SerializeToString())


def without_subnormals(model: bytes) -> bytes:
    """The ONNX `model` with its subnormal float32 weights (nonzero, under float32's smallest
    normal number, about 1.2e-38) set to zero; `model` itself if it has none.

    Training drives a unit that never fires towards zero, and some of its weights end below
    the normal range. The processor multiplies such a number through a slow microcode path
    unless flush-to-zero is set, which ONNX Runtime sets only for its own thread pools (the
    recogniser runs each session on the calling thread, `classify._session_options`), and
    recommends models without subnormals over setting it. The screen of
    51155ce had 673 (its second layer's weights and biases mostly): that layer, 33 thousand
    multiplications a patch, took 4.95 ms of the screen's 5.6 for 256 patches, where the first
    (179 thousand) took 0.61. Its weights zeroed, every output of 19,580 patches from 22
    photos was the same to the bit, and the screen read a patch in 3.8 µs instead of 17.2: a
    subnormal weight times an activation is too small to change a sum of normal size."""
    onnx = importlib.import_module("onnx")
    graph_model = onnx.load_from_string(model)
    if not _zero_subnormals(onnx, graph_model.graph):
        return model
    onnx.checker.check_model(graph_model)
    return bytes(graph_model.SerializeToString())


def _zero_subnormals(onnx: Any, graph: Any) -> bool:
    """Set the subnormal float32 weights of the ONNX `graph` to zero, in place (see
    `without_subnormals`); whether it had any."""
    tiny = np.finfo(np.float32).tiny
    zeroed_any = False
    for initializer in graph.initializer:
        array = onnx.numpy_helper.to_array(initializer)
        if array.dtype != np.float32:
            continue
        subnormal = (array != 0) & (np.abs(array) < tiny)
        if subnormal.any():
            zeroed = np.where(subnormal, np.float32(0), array).astype(np.float32)
            initializer.CopyFrom(onnx.numpy_helper.from_array(zeroed, initializer.name))
            zeroed_any = True
    return zeroed_any


def fit_temperature(logits: NDArray[np.float32], labels: NDArray[np.int64]) -> float:
    """The softmax temperature minimising held-out negative log-likelihood (grid search)."""
    best, best_nll = 1.0, math.inf
    for temperature in np.exp(np.linspace(math.log(0.3), math.log(5.0), 80)):
        probs = softmax(logits.astype(np.float64) / temperature)
        nll = float(-np.log(probs[np.arange(len(labels)), labels] + 1e-12).mean())
        if nll < best_nll:
            best, best_nll = float(temperature), nll
    return best


def as_maps(stored: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Stored ink maps (0-255) as the 0-1 floats the networks read."""
    return stored.astype(np.float32) / np.float32(255.0)


def network_logits(
    network: OnnxNetwork, samples: SampleSet, chunk: int = 4096
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """A network's rank and suit logits for every sample (features for a perceptron, ink maps
    for the convolutional network), read through ONNX Runtime a chunk at a time."""
    parts = [
        network.logits(
            samples.features[i : i + chunk]
            if isinstance(network, Network)
            else as_maps(samples.maps[i : i + chunk])
        )
        for i in range(0, len(samples.ranks), chunk)
    ]
    return np.concatenate([r for r, _ in parts]), np.concatenate([s for _, s in parts])


N = TypeVar("N", Network, ConvNet)


def calibrate_heads(network: N, validation: SampleSet) -> N:
    """Return `network` with both heads' temperatures fitted on `validation`."""
    rank_logits, suit_logits = network_logits(network, validation)
    return replace(
        network,
        rank_temperature=fit_temperature(rank_logits, validation.ranks),
        suit_temperature=fit_temperature(suit_logits, validation.suits),
    )


def report(model: IndexModel, validation: SampleSet) -> str:
    """Accuracy and a reliability table of the calibrated model on held-out samples, read as
    the recogniser reads them."""
    parts = [
        model.read_maps(as_maps(validation.maps[i : i + 4096]), validation.features[i : i + 4096])
        for i in range(0, len(validation.ranks), 4096)
    ]
    p_rank = np.concatenate([r for r, _ in parts])
    p_suit = np.concatenate([s for _, s in parts])
    rank_ok = p_rank.argmax(axis=1) == validation.ranks
    suit_ok = p_suit.argmax(axis=1) == validation.suits
    both = rank_ok & suit_ok
    index = validation.ranks != NONE_RANK
    lines = [
        f"held-out patches: {len(both)} ({int(index.sum())} with an index)",
        f"rank accuracy {rank_ok.mean():.4f}, suit accuracy {suit_ok.mean():.4f}, both {both.mean():.4f}",
        f"on index patches: both right {both[index].mean():.4f}; "
        f"said 'no index' for {float((p_rank.argmax(axis=1)[index] == NONE_RANK).mean()):.4f}",
        f"on blank patches: called an index {float((p_rank.argmax(axis=1)[~index] != NONE_RANK).mean()):.4f}",
        "temperatures (rank, suit): "
        + ", ".join(f"{n.rank_temperature:.3f} {n.suit_temperature:.3f}" for n in model.networks)
        + (
            f"; convolutional {model.conv.rank_temperature:.3f} {model.conv.suit_temperature:.3f}"
            if model.conv
            else ""
        ),
        "",
        "| confidence | patches | right |",
        "| --- | --- | --- |",
    ]
    confidence = p_rank.max(axis=1) * p_suit.max(axis=1)
    for lo, hi in ((0.0, 0.5), (0.5, 0.8), (0.8, 0.95), (0.95, 0.99), (0.99, 1.01)):
        sel = (confidence >= lo) & (confidence < hi)
        if sel.any():
            lines.append(f"| {lo:.2f}-{min(hi, 1.0):.2f} | {int(sel.sum())} | {both[sel].mean():.3f} |")
    return "\n".join(lines)
