"""The training data generator: labels from the generator's truth, and the balance of its
"no index" samples. (The model itself is measured by `vision.evaluate`, not here.)"""

from __future__ import annotations

import functools
import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards import CARD_CODES, card_code
from vision.classify import NONE_RANK, NONE_SUIT, default_model, feature_length, features_of_maps, ink_maps
from vision.geometry import PATCH_HEIGHT_PX, PATCH_WIDTH_PX
from vision.synth import (
    INDEX_REGION,
    face_quad,
    index_extent,
    paste_card,
    procedural_library,
    render_held_hand,
    visible_share,
)
from vision.train import MINED_NEGATIVES, _fork_pool, mined_samples, scene_samples
from vision.train.samples import MINED_SIZES, VISIBLE_INDEX, _lay_neighbour, _tight_move, generate

PROPOSAL_KINDS = 3
"""Outlines, lone corners and glyph frames: negatives are capped per kind."""


@pytest.mark.parametrize("seed", [11, 12])
def test_mined_samples_are_labelled_patches_with_negatives_capped_per_kind(seed: int) -> None:
    samples = mined_samples(random.Random(seed), procedural_library(seed, count=4))
    assert samples
    negatives = [s for s in samples if s[1] == NONE_RANK]
    cards = [s for s in samples if s[1] != NONE_RANK]
    # Every "no index" sample says so in both heads; every card sample names a real card.
    assert all(suit == NONE_SUIT for _, _, suit in negatives)
    assert all(rank < NONE_RANK and suit < NONE_SUIT for _, rank, suit in cards)
    # Each kind of proposal gives at most MINED_NEGATIVES; more than that in all means more
    # than one kind was drawn from (a table photo has plenty of every kind).
    assert MINED_NEGATIVES < len(negatives) <= PROPOSAL_KINDS * MINED_NEGATIVES
    assert all(patch.shape == (PATCH_HEIGHT_PX, PATCH_WIDTH_PX, 3) and patch.dtype == np.uint8
               for patch, _, _ in samples)


@pytest.mark.parametrize("seed", [21, 22])
def test_held_hands_give_samples_of_the_hands_own_cards(seed: int) -> None:
    library = procedural_library(seed, count=4)
    samples = mined_samples(random.Random(seed), library, held=True)
    # The hand mined_samples drew: the same draws from the same seed.
    draw = random.Random(seed)
    size = draw.choice(MINED_SIZES)
    if draw.random() < 0.5:
        size = (size[1], size[0])
    hand = render_held_hand(draw.getrandbits(40), library, size=size)
    named = [card_code(rank, suit) for _, rank, suit in samples if rank != NONE_RANK]
    # Every index read from the fan is labelled with a card of the hand, and most of the
    # hand's cards (each shows its top-left index) are among them.
    assert set(named) <= set(hand.cards)
    assert len(set(named)) >= len(hand.cards) // 2
    assert any(rank == NONE_RANK for _, rank, _ in samples)


def test_generate_refuses_an_unknown_kind_of_sample() -> None:
    with pytest.raises(ValueError, match="no sample kind 'fanned'"):
        generate(1, 1, 1, kind="fanned")


@functools.cache
def _maps() -> np.ndarray:
    return np.random.default_rng(3).random((4000, 2, PATCH_HEIGHT_PX, PATCH_WIDTH_PX), dtype=np.float32)


def _read_in_worker(rows: int) -> float:
    conv = default_model().conv
    assert conv is not None
    return float(conv.logits(_maps()[:rows])[0].sum())


@pytest.mark.timeout(60)
def test_workers_forked_after_the_network_ran_here_do_not_hang() -> None:
    # Training fits the network's temperatures here, then forks workers to calibrate whole
    # photos: a child forked while OpenCV's threads are parked deadlocked in its first
    # cv2.setNumThreads (the pool's workers each set one thread), and the run hung after half
    # an hour of work.
    conv = default_model().conv
    assert conv is not None
    threads = cv2.getNumThreads()
    runs = []
    for _ in range(5):
        conv.logits(_maps())  # a parallel OpenCV call in this process
        with _fork_pool(2) as pool:
            runs.append(pool.map(_read_in_worker, [50, 60, 70]))
    assert cv2.getNumThreads() == threads
    expected = [float(conv.logits(_maps()[:n])[0].sum()) for n in (50, 60, 70)]
    for sums in runs:
        assert sums == pytest.approx(expected, rel=1e-5)


def test_training_refuses_to_start_without_the_svg_decks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Procedural faces alone made a model that read every real spade as a club; the trainer says
    # which packages are missing before generating anything.
    from vision import decks
    from vision.train import cli

    gone = decks.SvgDeck("aisleriot-gone", str(tmp_path / "gone.svgz"), False, "test", "none")
    monkeypatch.setattr(decks, "SVG_DECKS", (gone,))
    monkeypatch.setattr(cli, "SVG_DECKS", (gone,))
    monkeypatch.setenv("MUGGINS_VISION_CACHE", str(tmp_path / "cache"))
    assert decks.missing_svg_decks() == ["aisleriot-gone"]
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--out", str(tmp_path / "model.npz")])
    assert stopped.value.code == 2
    assert "gnome-cards-data" in capsys.readouterr().err
    assert not (tmp_path / "model.npz").exists()


def test_each_perceptron_of_the_model_reads_index_patches_through_opencv() -> None:
    # The committed perceptrons are ONNX graphs that OpenCV runs (no PyTorch at recognition
    # time): each one alone names most index corners of generated single-card scenes, and
    # calls the patches that show no index so.
    library = procedural_library(21, count=4)
    rng = random.Random(21)
    samples = [s for _ in range(40) for s in scene_samples(rng, library)]
    patches = np.stack([patch for patch, _, _ in samples])
    ranks = np.array([rank for _, rank, _ in samples])
    suits = np.array([suit for _, _, suit in samples])
    features = features_of_maps(ink_maps(patches))
    index = ranks != NONE_RANK
    assert index.sum() >= 20 and (~index).sum() >= 20
    for network in default_model().networks:
        rank, suit = network.probabilities(features)
        named = (rank.argmax(axis=1) == ranks) & (suit.argmax(axis=1) == suits)
        assert named[index].mean() >= 0.75
        assert (rank.argmax(axis=1)[~index] == NONE_RANK).mean() >= 0.9


def _torch() -> object:
    pytest.importorskip("onnx")
    return pytest.importorskip("torch")


def test_a_perceptron_exported_to_onnx_reads_in_opencv_as_in_torch() -> None:
    torch = _torch()
    from vision.classify import Network
    from vision.train.models import export_onnx, perceptron

    n = feature_length()
    rng = np.random.default_rng(4)
    mean = rng.standard_normal(n).astype(np.float32)
    scale = (0.5 + rng.random(n)).astype(np.float32)
    net = perceptron(n, mean, scale, np.random.default_rng(9)).eval()
    network = Network(export_onnx(torch, net, (1, n), "features", half=True))
    rows = rng.standard_normal((50, n)).astype(np.float32)
    rank, suit = network.logits(rows)
    assert rank.shape == (50, NONE_RANK + 1) and suit.shape == (50, NONE_SUIT + 1)
    # The weight matrices are stored as float16: the same network with its weights rounded so
    # gives the same logits in torch; the unrounded one nearly so.
    with torch.no_grad():  # type: ignore[attr-defined]
        exact = net(torch.from_numpy(rows)).numpy()  # type: ignore[attr-defined]
        for layer in net.layers:
            layer.weight.copy_(layer.weight.half().float())
        rounded = net(torch.from_numpy(rows)).numpy()  # type: ignore[attr-defined]
    both = np.concatenate([rank, suit], axis=1)
    np.testing.assert_allclose(both, rounded, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(both, exact, rtol=1e-2, atol=2e-2)


def test_a_perceptron_trained_in_torch_learns_and_is_read_by_opencv() -> None:
    _torch()
    from vision.train.models import train_network
    from vision.train.samples import SampleSet

    # Sixty-five classes (every card and "no index"), each a point in feature space with noise:
    # separable, so a few epochs must name held-out rows right.
    n = feature_length()
    rng = np.random.default_rng(6)
    centres = rng.standard_normal((65, n)).astype(np.float32)
    labels = rng.integers(0, 65, 1600)
    rows = (centres[labels] + 0.5 * rng.standard_normal((1600, n))).astype(np.float32)
    ranks, suits = (labels % 13).astype(np.int64), (labels // 13 % 4).astype(np.int64)
    ranks[labels == 64], suits[labels == 64] = NONE_RANK, NONE_SUIT
    maps = np.zeros((1600, 2, PATCH_HEIGHT_PX, PATCH_WIDTH_PX), np.uint8)
    train = SampleSet(rows[:1200], ranks[:1200], suits[:1200], maps[:1200])
    network = train_network(train, seed=3, epochs=3, log=False)
    rank, suit = network.probabilities(rows[1200:])
    right = (rank.argmax(axis=1) == ranks[1200:]) & (suit.argmax(axis=1) == suits[1200:])
    assert right.mean() >= 0.95
    # One seed fixes the run (starting weights, batch order, dropout masks): trained again
    # from it, the same network; from another, a different one.
    again = train_network(train, seed=3, epochs=3, log=False)
    other = train_network(train, seed=4, epochs=3, log=False)
    np.testing.assert_array_equal(again.logits(rows[1200:])[0], network.logits(rows[1200:])[0])
    assert not np.allclose(other.logits(rows[1200:])[0], network.logits(rows[1200:])[0])



def test_a_neighbour_laid_tight_leaves_the_decks_index_and_little_more() -> None:
    # A bridge player's deal shows each card's index and a sliver of paper beside the next
    # card; --tight trains on such neighbours, measured against the deck's own index.
    library = procedural_library(31, count=4)
    rng = random.Random(31)
    whole = index_kept = 0
    for _ in range(40):
        deck = library.deck(rng)
        face = deck(rng.choice(CARD_CODES))
        across, down = index_extent(deck)
        fw, fh = face.shape[1], face.shape[0]
        table = np.zeros((3 * fh, 4 * fw, 3), np.float32)
        occupancy = np.full(table.shape[:2], -1, np.int16)
        quad = face_quad(face) + np.array([fw, fh], np.float32)
        paste_card(table, occupancy, face, quad, 0, rng)
        to_image = np.asarray(cv2.getPerspectiveTransform(face_quad(face), quad), np.float64)
        other = deck(rng.choice(CARD_CODES))
        _lay_neighbour(rng, table, occupancy, other, face, to_image, _tight_move(rng, face, (across, down)))
        index = np.array([[0, 0], [across * fw, 0], [across * fw, down * fw], [0, down * fw]], np.float32)
        index_kept += visible_share(occupancy, index + np.array([fw, fh], np.float32), 0) >= VISIBLE_INDEX
        whole += visible_share(occupancy, quad, 0)
        # The next card covers the rest of the corner region every deck's index fits in.
        region = np.array([[0, 0], [INDEX_REGION[0] * fw, 0], [INDEX_REGION[0] * fw, INDEX_REGION[1] * fw],
                           [0, INDEX_REGION[1] * fw]], np.float32)
        assert visible_share(occupancy, region + np.array([fw, fh], np.float32), 0) < 1.0
    assert index_kept >= 30  # turned up to 6 degrees, the next card's edge cuts an index now and then
    assert whole / 40 < 0.35  # a strip of the card, no more


def test_scenes_with_tight_neighbours_label_a_whole_small_index_with_its_card() -> None:
    # Labelled by INDEX_REGION, a small index whole beside a tight edge was "no index" or left
    # out; labelled by the deck's own index, it names its card.
    library = procedural_library(41, count=4)
    named = 0
    for seed in range(60):
        samples = scene_samples(random.Random(seed), library, tight=1.0)
        named += sum(rank != NONE_RANK for _, rank, _ in samples)
    # 56 of these 60 scenes name their card (labelled by INDEX_REGION, 43 did).
    assert named >= 52


def test_the_screens_samples_are_every_patch_read_labelled_by_the_first_perceptron() -> None:
    from vision.classify import index_presence
    from vision.recognise import recognise
    from vision.train.pools import worker_library
    from vision.train.screen import SCREEN_SIZES, _photo, screen_samples

    model = default_model()
    samples = screen_samples(model, seed=31, photos=2, workers=1, chunk=2)
    assert samples.maps.dtype == np.uint8 and samples.maps.shape[1:] == (2, PATCH_HEIGHT_PX, PATCH_WIDTH_PX)
    assert len(samples.maps) == len(samples.first) == len(samples.whole) > 100
    # The labels are the first perceptron's own presence on the patches kept.
    rows = features_of_maps(samples.maps[:300].astype(np.float32) / np.float32(255.0))
    again = index_presence(*model.networks[0].probabilities(rows))
    np.testing.assert_allclose(again, samples.first[:300], atol=0.02)
    # A patch the whole reading takes for an index is one the first perceptron let through,
    # and the two photos' cards were all read among them.
    assert samples.passing[samples.whole >= 0.5].all()
    draw = random.Random(31 * 7919)
    library = worker_library(31)
    found = 0
    for kind in (0, 1):
        size = draw.choice(SCREEN_SIZES)
        photo = _photo(kind, draw, library, size)
        found += len(recognise(photo.jpeg_bytes(), model, threads=1).cards)
    assert found >= 5 and int((samples.whole >= 0.5).sum()) >= found


def _two_layers(hidden: np.ndarray, out: np.ndarray) -> bytes:
    """An ONNX graph of two layers as the networks have them: rows times `hidden` transposed,
    ReLU, then times `out` transposed."""
    import onnx

    helper, tensor = onnx.helper, onnx.TensorProto
    graph = helper.make_graph(
        [
            helper.make_node("Gemm", ["x", "hidden"], ["h"], transB=1),
            helper.make_node("Relu", ["h"], ["r"]),
            helper.make_node("Gemm", ["r", "out"], ["y"], transB=1),
        ],
        "layers",
        [helper.make_tensor_value_info("x", tensor.FLOAT, ["patches", hidden.shape[1]])],
        [helper.make_tensor_value_info("y", tensor.FLOAT, ["patches", out.shape[0]])],
        [onnx.numpy_helper.from_array(hidden, "hidden"), onnx.numpy_helper.from_array(out, "out")],
    )
    return bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())


def _subnormal_weights(model: bytes) -> int:
    """How many float32 weights of the ONNX `model` are subnormal (nonzero, below the normal range)."""
    import onnx

    count = 0
    for initializer in onnx.load_from_string(model).graph.initializer:
        array = onnx.numpy_helper.to_array(initializer)
        if array.dtype == np.float32:
            count += int(np.count_nonzero((array != 0) & (np.abs(array) < np.finfo(np.float32).tiny)))
    return count


def test_subnormal_weights_are_zeroed_and_every_output_stays_the_same() -> None:
    from vision.classify import OnnxNetwork
    from vision.train.models import without_subnormals

    rng = np.random.default_rng(23)
    hidden = rng.standard_normal((32, 64)).astype(np.float32)
    out = rng.standard_normal((19, 32)).astype(np.float32)
    # Two units that never fired in training: their weights decayed below float32's normal range.
    hidden[3] = 1e-39
    hidden[7, ::2] = -3e-41
    model = _two_layers(hidden, out)
    assert _subnormal_weights(model) == 64 + 32
    flushed = without_subnormals(model)
    assert _subnormal_weights(flushed) == 0
    rows = rng.standard_normal((300, 64)).astype(np.float32) * 40
    before, after = OnnxNetwork(model).outputs(rows), OnnxNetwork(flushed).outputs(rows)
    np.testing.assert_array_equal(before.view(np.uint32), after.view(np.uint32))
    # A graph with none is given back as it came.
    plain = _two_layers(rng.standard_normal((32, 64)).astype(np.float32), out)
    assert without_subnormals(plain) is plain


def test_the_stored_networks_hold_no_subnormal_weight() -> None:
    # Each would send every patch's multiplication by it down the processor's slow path: the
    # screen's 673 made it read a patch in 17 µs instead of 4.
    model = default_model()
    networks = [*model.networks, model.conv, model.screen]
    assert all(network is not None for network in networks)
    assert [_subnormal_weights(network.onnx) for network in networks if network is not None] == [0] * 5
