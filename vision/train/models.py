"""The networks: an ensemble of perceptrons over the patches' hand-made features (numpy, two
ReLU layers, two softmax heads each, trained with AdamW on the same data from different
starting weights), and a small convolutional network over the patches' ink maps, trained with
PyTorch (`pip install -r requirements-train.txt`; only training needs it: the recogniser runs
the network through OpenCV from its ONNX export). The temperatures of each network's heads are
fitted on held-out samples so that the probabilities are calibrated.
"""

from __future__ import annotations

import importlib
import io
import itertools
import math
import time
import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.classify import NONE_RANK, NONE_SUIT, ConvNet, IndexModel, Network, softmax
from vision.geometry import PATCH_HEIGHT_PX, PATCH_WIDTH_PX
from vision.train.samples import SampleSet

DEFAULT_NETWORKS = 3
"""Networks in the ensemble. On generated development shows (not the evaluation seeds)
averaging two networks lifted the exact-photo rate from 87 % to 91 % and three to 93 %; each
costs about 2 minutes to train, 1.7 MB on disk and some milliseconds per photo (the features
are computed once)."""

NETWORK_SEED_STEP = 7_919
"""Offset between the starting-weight seeds of the ensemble's networks."""


@dataclass
class _Params:
    weights: list[NDArray[np.float32]]
    biases: list[NDArray[np.float32]]


DROPOUT = 0.3
"""Share of hidden units silenced per training step; without it the net memorises the decks."""


def _forward(
    params: _Params, x: NDArray[np.float32], nrng: np.random.Generator | None = None
) -> tuple[list[NDArray[np.float32]], NDArray[np.float32]]:
    """Activations of every layer and the output logits; `nrng` turns dropout on."""
    activations = [x]
    for w, b in zip(params.weights[:-1], params.biases[:-1], strict=True):
        hidden = np.maximum(activations[-1] @ w + b, 0.0)
        if nrng is not None:
            hidden *= (nrng.random(hidden.shape, dtype=np.float32) >= DROPOUT) / np.float32(1.0 - DROPOUT)
        activations.append(hidden)
    out = activations[-1] @ params.weights[-1] + params.biases[-1]
    return activations, out


def train_network(
    train: SampleSet,
    seed: int,
    epochs: int,
    hidden: tuple[int, ...] = (384, 192),
    batch: int = 256,
    learning_rate: float = 2e-3,
    weight_decay: float = 1e-4,
    log: bool = True,
) -> Network:
    """Fit one MLP (uncalibrated: temperatures 1) to `train`, from starting weights `seed`."""
    nrng = np.random.default_rng(seed)
    mean = train.features.mean(axis=0)
    scale = train.features.std(axis=0) + 1e-3
    x_all = ((train.features - mean) / scale).astype(np.float32)
    sizes = [x_all.shape[1], *hidden, NONE_RANK + 1 + NONE_SUIT + 1]
    params = _Params(
        [
            (nrng.standard_normal((a, b)) * math.sqrt(2.0 / a)).astype(np.float32)
            for a, b in itertools.pairwise(sizes)
        ],
        [np.zeros(b, np.float32) for b in sizes[1:]],
    )
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in [*params.weights, *params.biases]]
    step = 0
    n = len(x_all)
    steps_total = epochs * math.ceil(n / batch)
    split = NONE_RANK + 1
    for epoch in range(epochs):
        order = nrng.permutation(n)
        started = time.perf_counter()
        total_loss = 0.0
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            x, rank, suit = x_all[idx], train.ranks[idx], train.suits[idx]
            activations, out = _forward(params, x, nrng)
            p_rank = softmax(out[:, :split].astype(np.float64))
            p_suit = softmax(out[:, split:].astype(np.float64))
            rows = np.arange(len(idx))
            total_loss += float(
                -np.log(p_rank[rows, rank] + 1e-12).sum() - np.log(p_suit[rows, suit] + 1e-12).sum()
            )
            p_rank[rows, rank] -= 1.0
            p_suit[rows, suit] -= 1.0
            grad = (np.concatenate([p_rank, p_suit], axis=1) / len(idx)).astype(np.float32)
            grads_w: list[NDArray[np.float32]] = []
            grads_b: list[NDArray[np.float32]] = []
            for layer in range(len(params.weights) - 1, -1, -1):
                grads_w.append(activations[layer].T @ grad)
                grads_b.append(grad.sum(axis=0))
                if layer:
                    grad = (grad @ params.weights[layer].T) * (activations[layer] > 0)
            grads_w.reverse()
            grads_b.reverse()
            step += 1
            lr = learning_rate * 0.5 * (1 + math.cos(math.pi * step / steps_total))
            for i, (p, g) in enumerate(
                zip([*params.weights, *params.biases], [*grads_w, *grads_b], strict=True)
            ):
                m, v = moments[i]
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                m_hat = m / (1 - 0.9**step)
                v_hat = v / (1 - 0.999**step)
                if p.ndim == 2:
                    p *= 1.0 - lr * weight_decay
                p -= (lr * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
        if log:
            seconds = time.perf_counter() - started
            print(f"  epoch {epoch + 1}/{epochs}: loss {total_loss / n:.4f} ({seconds:.0f} s)", flush=True)
    return Network(
        mean=mean.astype(np.float32),
        scale=scale.astype(np.float32),
        hidden=tuple(zip(params.weights[:-1], params.biases[:-1], strict=True)),
        rank_head=(params.weights[-1][:, :split].copy(), params.biases[-1][:split].copy()),
        suit_head=(params.weights[-1][:, split:].copy(), params.biases[-1][split:].copy()),
    )


def fit_temperature(logits: NDArray[np.float32], labels: NDArray[np.int64]) -> float:
    """The softmax temperature minimising held-out negative log-likelihood (grid search)."""
    best, best_nll = 1.0, math.inf
    for temperature in np.exp(np.linspace(math.log(0.3), math.log(5.0), 80)):
        probs = softmax(logits.astype(np.float64) / temperature)
        nll = float(-np.log(probs[np.arange(len(labels)), labels] + 1e-12).mean())
        if nll < best_nll:
            best, best_nll = float(temperature), nll
    return best


def calibrate_heads(network: Network, validation: SampleSet) -> Network:
    """Return `network` with both heads' temperatures fitted on `validation`."""
    rank_logits, suit_logits = network.logits(validation.features)
    return replace(
        network,
        rank_temperature=fit_temperature(rank_logits, validation.ranks),
        suit_temperature=fit_temperature(suit_logits, validation.suits),
    )


CONV_EPOCHS = 6
"""Passes of the convolutional network over the training patches (about 2 minutes each on 2
cores); held-out accuracy on index patches was still rising at 6, by 0.3 points an epoch."""

CONV_LAYERS = ((2, 16), (16, 32), (32, 64))
"""(input, output) channels of its three 3x3 convolutions, each followed by ReLU and a 2x2 max
pool; then a dropout, a 128-unit ReLU layer and the two heads."""

CONV_HIDDEN = 128
CONV_DROPOUT = 0.2


def torch_module() -> Any:
    """PyTorch, imported only for training (neither it nor onnx, which its export needs, is a
    runtime dependency)."""
    try:
        importlib.import_module("onnx")
        return importlib.import_module("torch")
    except ModuleNotFoundError:
        raise SystemExit(
            "training the convolutional network needs PyTorch: pip install -r requirements-train.txt "
            "(or pass --conv-epochs 0 to build a model without it)"
        ) from None


def as_maps(stored: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Stored ink maps (0-255) as the 0-1 floats the networks read."""
    return stored.astype(np.float32) / np.float32(255.0)


def train_conv(
    train: SampleSet, validation: SampleSet, seed: int, epochs: int, batch: int = 256, log: bool = True
) -> ConvNet:
    """Fit the convolutional network to `train` (AdamW, one-cycle learning rate), export it as
    ONNX and fit its heads' temperatures on `validation`, read through OpenCV as the
    recogniser reads it."""
    torch = torch_module()
    nn = torch.nn
    torch.manual_seed(seed)
    layers: list[Any] = []
    for channels_in, channels_out in CONV_LAYERS:
        layers += [nn.Conv2d(channels_in, channels_out, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
    flat = CONV_LAYERS[-1][1] * (PATCH_HEIGHT_PX // 8) * (PATCH_WIDTH_PX // 8)
    split = NONE_RANK + 1
    net = nn.Sequential(
        *layers,
        nn.Flatten(),
        nn.Dropout(CONV_DROPOUT),
        nn.Linear(flat, CONV_HIDDEN),
        nn.ReLU(),
        nn.Linear(CONV_HIDDEN, split + NONE_SUIT + 1),
    )
    optimiser = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, 3e-3, total_steps=epochs * math.ceil(len(train.ranks) / batch)
    )
    maps, ranks, suits = (torch.from_numpy(a) for a in (train.maps, train.ranks, train.suits))
    generator = torch.Generator().manual_seed(seed)
    cross_entropy = nn.functional.cross_entropy
    net.train()
    for epoch in range(epochs):
        started = time.perf_counter()
        order = torch.randperm(len(ranks), generator=generator)
        total_loss = 0.0
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            out = net(maps[idx].float() / 255.0)
            loss = cross_entropy(out[:, :split], ranks[idx]) + cross_entropy(out[:, split:], suits[idx])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total_loss += float(loss.item()) * len(idx)
        if log:
            seconds = time.perf_counter() - started
            mean_loss = total_loss / len(ranks)
            print(f"  epoch {epoch + 1}/{epochs}: loss {mean_loss:.4f} ({seconds:.0f} s)", flush=True)
    net.eval()
    buffer = io.BytesIO()
    example = torch.zeros((1, 2, PATCH_HEIGHT_PX, PATCH_WIDTH_PX))
    with warnings.catch_warnings():
        # The TorchScript exporter is deprecated in favour of torch.export, which needs the
        # onnxscript package too; it still writes this plain convolutional stack exactly.
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            net, example, buffer, dynamo=False, input_names=["maps"], dynamic_axes={"maps": {0: "patches"}}
        )
    conv = ConvNet(buffer.getvalue())
    rank_logits, suit_logits = _conv_logits(conv, validation.maps)
    return replace(
        conv,
        rank_temperature=fit_temperature(rank_logits, validation.ranks),
        suit_temperature=fit_temperature(suit_logits, validation.suits),
    )


def _conv_logits(conv: ConvNet, stored: NDArray[np.uint8]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    parts = [conv.logits(as_maps(stored[i : i + 4096])) for i in range(0, len(stored), 4096)]
    return np.concatenate([r for r, _ in parts]), np.concatenate([s for _, s in parts])


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
