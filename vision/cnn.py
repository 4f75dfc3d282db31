"""The pit counter's small convolutional network, run with numpy only.

Weights (``vision/models/counter_cnn.npz``) are trained by
``python -m vision.train_cnn fit`` (PyTorch, training only) and stored with the
batch norms folded into the convolutions, as a list of operations: ``convK``
(3x3, padding 1, then ReLU), ``pool`` (2x2 max), ``gap`` (global average),
``fcK`` (dense) and ``relu``. Input: the crop resized to ``INPUT`` x ``INPUT``
BGR, standardised by its own mean and spread (so exposure does not matter).
Output: logits over the counts 0..40, averaged over turned views of the crop
(:meth:`CountNet.mean_logits`); :func:`calibrated` turns them into
probabilities at the temperature fitted for that number of views, and :func:`widen` blurs the
distributions of big heaps by the amounts fitted on held-out heaps
(``python -m vision.train_cnn widen``; stored in the same file).

The same network is also stored as ONNX beside the weights
(``counter_cnn.onnx``, written by ``python -m vision.train_cnn onnx``) and run by
OpenCV's dnn module when present, about three times faster than numpy. It is
checked against the numpy network on a probe input when loaded; a missing or
stale file (its logits differ) leaves the numpy network in use, with a warning
for a stale one.
"""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Sequence
from concurrent.futures import wait
from pathlib import Path

import cv2
import numpy as np

from vision.threads import LazyPool

INPUT = 64
N_COUNTS = 41  # counts 0..40 (vision.count.MAX_COUNT)
MODEL_PATH = Path(__file__).with_name("models") / "counter_cnn.npz"
# the second network of ``bao count-pit``: trained mostly on procedural pits of many
# looks (:mod:`vision.synth_pits`), for crops of boards and seeds unlike the renders
BROAD_MODEL_PATH = MODEL_PATH.with_name("counter_cnn_broad.npz")


def preprocess(crop64: np.ndarray) -> np.ndarray:
    """HWC float32 input from an INPUT x INPUT BGR uint8 crop (zero mean, unit spread)."""
    x = crop64.astype(np.float32) * (1.0 / 255.0)
    return (x - x.mean()) / (x.std() + 0.02)


def resize_input(crop: np.ndarray) -> np.ndarray:
    """A square BGR crop resized to the network's input size."""
    h, w = crop.shape[:2]
    interp = cv2.INTER_AREA if min(h, w) > INPUT else cv2.INTER_LINEAR
    return cv2.resize(crop, (INPUT, INPUT), interpolation=interp)


def calibrated(logits: np.ndarray, temperature: float) -> np.ndarray:
    """Softmax of ``logits / temperature`` over the last axis."""
    z = np.asarray(logits, np.float64) / temperature
    z = z - z.max(axis=-1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=-1, keepdims=True)


#: the heap widening's numbers in a model file, in :func:`widen`'s order
WIDENING_KEYS = ("widen", "widen_from", "widen_up", "widen_tail", "widen_tail_up")


def blur_counts(row: np.ndarray, sd_down: float, sd_up: float) -> np.ndarray:
    """A distribution over counts 0..n blurred by a Gaussian of sd ``sd_down`` towards
    fewer and ``sd_up`` towards more (each count's mass spreads, its sum kept)."""
    if max(sd_down, sd_up) < 0.05:
        return row
    levels = np.arange(len(row), dtype=np.float64)
    step = levels[:, None] - levels[None, :]  # [to, from]
    sd = np.where(step > 0, max(sd_up, 1e-3), max(sd_down, 1e-3))
    k = np.exp(-0.5 * (step / sd) ** 2)
    k /= k.sum(axis=0, keepdims=True)  # column j: where mass at j spreads to
    return k @ row


def widen(p: np.ndarray, widen: float, widen_from: float, widen_up: float | None = None,
          tail: float = 0.0, tail_up: float = 0.0) -> np.ndarray:
    """Blur each row of ``p`` (distributions over 0..40) by a Gaussian of sd
    ``widen * (mean - widen_from)`` towards fewer seeds and ``widen_up * (mean -
    widen_from)`` towards more: seeds hidden in a heap make it look smaller than
    it is, so a heap's count is less sure than the network says.

    ``tail`` > 0: that share of such a row is blurred upwards by ``tail_up * (mean -
    widen_from)`` instead, the rest as above. A heap is now and then read far too
    low (seeds on top hide the rest; the heap looks like a small one); a thin, long
    upper tail holds such heaps in the 90 % interval, where one long blur of the
    whole row would move the most likely count of every pit of 9-15 seeds up."""
    p = np.atleast_2d(np.asarray(p, np.float64))
    up = widen if widen_up is None else widen_up
    if widen <= 0 and up <= 0 and (tail <= 0 or tail_up <= 0):
        return p
    counts = np.arange(p.shape[1], dtype=np.float64)
    out = p.copy()
    for i, row in enumerate(p):
        excess = max(0.0, float(row @ counts) - widen_from)
        if excess <= 0:
            continue
        out[i] = blur_counts(row, widen * excess, up * excess)
        if tail > 0 and tail_up > 0:
            out[i] = (1 - tail) * out[i] + tail * blur_counts(row, widen * excess, tail_up * excess)
    return out / out.sum(axis=1, keepdims=True)


def _conv3(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """3x3 convolution, padding 1, NHWC input; ``w`` is (out, in, 3, 3).

    The nine shifted copies of the input are laid side by side (im2col in
    (dy, dx, channel) order, weights reordered to match) and multiplied at once."""
    n, h, wd, c = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    cols = np.concatenate([xp[:, dy:dy + h, dx:dx + wd, :] for dy in range(3) for dx in range(3)],
                          axis=-1).reshape(n * h * wd, 9 * c)
    out = cols @ w.transpose(2, 3, 1, 0).reshape(9 * c, w.shape[0]) + b
    return out.reshape(n, h, wd, w.shape[0])


def views_of(x: np.ndarray, k: int) -> np.ndarray:
    """View ``k`` (0..7) of a batch (N, H, W, C): a quarter turn ``k % 4`` times, mirrored
    first when ``k >= 4``. A pit seen from above has no preferred direction, so the
    network's answers on these views are equally valid and are averaged."""
    if k >= 4:
        x = x[:, :, ::-1]
    return np.ascontiguousarray(np.rot90(x, k % 4, axes=(1, 2)))


#: a number of views: one for all inputs, or one per input
Views = int | Sequence[int] | np.ndarray

#: largest difference allowed between the OpenCV and numpy logits on the probe input
_BACKEND_TOLERANCE = 1e-3


#: inputs given to OpenCV's network at a time. With its classic engine, in batches of 4
#: the count stage took 9 ms less a photo than in batches of 64 (in batches of 8, 6 ms
#: less; two threads, seed 541, paired per photo): a small batch's activations stay in
#: the cores' caches. OpenCV 5's new engine gains nothing from small batches.
DNN_BATCH = 4

#: copies of OpenCV's network run side by side, each on its own thread and on its share
#: of the batches, when OpenCV may use that many threads (``cv2.getNumThreads``). OpenCV
#: spreads one small batch over its threads poorly: 48 inputs took 50.7 ms on this
#: machine's two cores in batches of 4, and 39.3 ms on two copies (70.5 ms on one core).
#: In the board pipeline (two threads), the count stage of seed 997's 24 photos took
#: 68.4 -> 59.8 ms (medians), and the whole reading of 96 photos 3.6 ms less (the median
#: of the paired differences; ``benchmarks/results/vision_ab_s61_dnn_copies.json``).
DNN_COPIES = 2
#: the threads that run the further copies of the network (made on first use)
_DNN_POOL = LazyPool(max(DNN_COPIES - 1, 1), "bao-counter")


def _read_onnx(onnx: Path) -> cv2.dnn.Net:
    """The ONNX network for OpenCV's dnn module. OpenCV 5 has two engines and picks its
    new one by default; the classic one runs this small network faster on the CPU, with
    the same logits to 1e-4. The count stage of seed 541's photos took 64 ms with the new
    engine, 59 ms with the classic one and 50 ms with the classic one in
    :data:`DNN_BATCH` batches (medians, two threads). OpenCV 4 has only the classic
    engine and no ``engine`` argument."""
    engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    if engine is None:
        return cv2.dnn.readNetFromONNX(str(onnx))
    return cv2.dnn.readNetFromONNX(str(onnx), engine=engine)


class CountNet:
    """The exported network; :meth:`logits` takes a batch of preprocessed inputs (N, H, W, 3).

    ``backend``: ``"auto"`` runs the network with OpenCV's dnn module when the ONNX
    file beside ``path`` loads and agrees with the numpy weights, else with numpy;
    ``"numpy"`` always with numpy; ``"opencv"`` with OpenCV or a ``RuntimeError``.
    :attr:`backend` says which is in use."""

    def __init__(self, path: Path = MODEL_PATH, backend: str = "auto") -> None:
        if backend not in ("auto", "numpy", "opencv"):
            raise ValueError(f"backend must be auto, numpy or opencv, not {backend!r}")
        try:
            data = np.load(path)
        except OSError as exc:
            raise RuntimeError(f"counter model {path} missing: run python -m vision.train_cnn fit"
                               ) from exc
        self.ops = [str(o) for o in data["ops"]]
        self.params = {k: data[k].astype(np.float32) for k in data.files
                       if k.endswith("_w") or k.endswith("_b")}
        self.temperature = float(data["temperature"])
        # temperatures fitted for logits averaged over 1..8 views (optional in the file:
        # ``python -m vision.train_cnn temper``); averaged logits are less extreme
        self.temperatures = (tuple(float(t) for t in data["temperatures"])
                             if "temperatures" in data.files else None)
        # heap widening (optional in the file): sd per seed above ``widen_from``, and
        # the share and sd per seed of its long upper tail (:func:`widen`)
        self.widening = tuple(float(data[k]) if k in data.files else 0.0
                              for k in WIDENING_KEYS)
        if int(data["input"]) != INPUT:
            raise RuntimeError(f"counter model {path} expects {int(data['input'])} px input")
        self.backend = "numpy"
        self._dnn: cv2.dnn.Net | None = None
        self._copies: list[cv2.dnn.Net] = []  # more of it, read on first use (DNN_COPIES)
        self._onnx = Path(path).with_suffix(".onnx")
        self._lock = threading.Lock()  # an OpenCV net runs one input at a time
        if backend != "numpy":
            problem, stale = self._load_onnx(self._onnx)
            if problem is not None and backend == "opencv":
                raise RuntimeError(problem)
            if problem is not None and stale:  # a file there but wrong: worth hearing of
                warnings.warn(problem, RuntimeWarning, stacklevel=2)

    def _load_onnx(self, onnx: Path) -> tuple[str | None, bool]:
        """Use the ONNX network at ``onnx`` when it gives the numpy network's logits;
        else (why not, whether the file is there but wrong)."""
        if not onnx.is_file():
            return f"counter model {onnx} missing: run python -m vision.train_cnn onnx", False
        try:
            net = _read_onnx(onnx)
        except cv2.error as exc:
            return f"counter model {onnx} unreadable by OpenCV: {exc}", True
        probe = np.random.default_rng(0).standard_normal((3, INPUT, INPUT, 3)).astype(np.float32)
        want = self._numpy_logits(probe)
        got = self._opencv_logits(net, probe)
        if got.shape != want.shape or float(np.abs(got - want).max()) > _BACKEND_TOLERANCE * (
                1.0 + float(np.abs(want).max())):
            return (f"counter model {onnx} gives other logits than {onnx.with_suffix('.npz')} "
                    "(stale?): running the numpy network; rewrite it with "
                    "python -m vision.train_cnn onnx"), True
        self._dnn, self.backend = net, "opencv"
        return None, False

    @staticmethod
    def _opencv_logits(net: cv2.dnn.Net, x: np.ndarray) -> np.ndarray:
        net.setInput(np.ascontiguousarray(np.asarray(x, np.float32).transpose(0, 3, 1, 2)))
        return np.array(net.forward(), np.float32).reshape(len(x), -1)

    def logits(self, x: np.ndarray) -> np.ndarray:
        if self._dnn is None or not len(x):
            return self._numpy_logits(x)
        starts = list(range(0, len(x), DNN_BATCH))
        with self._lock:
            nets = [self._dnn, *self._more(min(DNN_COPIES, cv2.getNumThreads(), len(starts)) - 1)]

            def share(k: int) -> list[np.ndarray]:  # net k: batches k, k + len(nets), ...
                return [self._opencv_logits(nets[k], x[s:s + DNN_BATCH]) for s in starts[k::len(nets)]]

            others = [_DNN_POOL.get().submit(share, k) for k in range(1, len(nets))]
            try:
                mine = share(0)
            finally:  # (the other copies done before the lock is let go, even on an error)
                wait(others)
            shares = [mine, *(f.result() for f in others)]
        out: list[np.ndarray] = [np.empty(0)] * len(starts)
        for k, got in enumerate(shares):
            out[k::len(nets)] = got
        return np.concatenate(out)

    def _more(self, n: int) -> list[cv2.dnn.Net]:
        """``n`` further copies of the OpenCV network (read once, kept; under ``_lock``)."""
        while len(self._copies) < n:
            self._copies.append(_read_onnx(self._onnx))
        return self._copies[:max(n, 0)]

    def _numpy_logits(self, x: np.ndarray) -> np.ndarray:
        h = np.ascontiguousarray(x, np.float32)
        for op in self.ops:
            if op.startswith("conv"):
                h = np.maximum(_conv3(h, self.params[op + "_w"], self.params[op + "_b"]), 0.0)
            elif op == "pool":  # 2 x 2 max (the four strided quarters: faster than a reshape)
                h = np.maximum(np.maximum(h[:, 0::2, 0::2], h[:, 1::2, 0::2]),
                               np.maximum(h[:, 0::2, 1::2], h[:, 1::2, 1::2]))
            elif op == "gap":
                h = h.mean(axis=(1, 2))
            elif op.startswith("fc"):
                h = h @ self.params[op + "_w"] + self.params[op + "_b"]
            elif op == "relu":
                h = np.maximum(h, 0.0)
            else:
                raise RuntimeError(f"counter model: unknown operation {op!r}")
        return h

    def mean_logits(self, x: np.ndarray, views: Views = 1,
                    known: tuple[np.ndarray, Views] | None = None) -> np.ndarray:
        """Logits averaged over the first ``views`` views of each input (:func:`views_of`:
        1 = as given, 2 = and half a turn, 4 = the four quarter turns, 8 = and mirrored);
        ``views`` may differ per input. ``known``: (the mean over the first ``n`` views,
        already made, ``n``, also per input or one for all): only the others are run.
        All the views wanted are run together, in batches of up to 64 (OpenCV's network
        takes them :data:`DNN_BATCH` at a time)."""
        n = len(x)
        want = np.broadcast_to(np.asarray(views, int), (n,))
        if n and not (np.all(want >= 1) and np.all(want <= 8)):
            raise ValueError(f"views must be 1..8, not {views}")
        done = np.zeros(n, int) if known is None else np.broadcast_to(np.asarray(known[1], int), (n,))
        if n and not (np.all(done >= 0) and np.all(done <= want)):
            raise ValueError(f"known views must be 0..{views}, not {known[1] if known else 0}")
        order = (0, 2, 1, 3, 4, 6, 5, 7)  # 2 views: opposite turns, not neighbours
        idx = [np.flatnonzero((done <= j) & (j < want)) for j in range(8)]
        jobs = [(order[j], i) for j, i in enumerate(idx) if len(i)]
        total = np.zeros((n, N_COUNTS), np.float32)
        if known is not None:
            total += done[:, None] * np.asarray(known[0], np.float32)
        if jobs:
            batch = np.concatenate([views_of(x[i], k) for k, i in jobs])
            out = np.concatenate([self.logits(batch[s:s + 64]) for s in range(0, len(batch), 64)])
            np.add.at(total, np.concatenate([i for _, i in jobs]), out)
        return total / np.maximum(want, 1)[:, None].astype(np.float32)

    def inputs(self, crops: list[np.ndarray]) -> np.ndarray:
        """The network's input batch (N, INPUT, INPUT, 3) for square BGR uint8 crops."""
        return np.stack([preprocess(resize_input(c)) for c in crops])

    def calibrate(self, logits: np.ndarray, views: Views, widened: bool = True) -> np.ndarray:
        """Distributions (rows over 0..40) from logits averaged over ``views`` views (one
        number, or one per row): the softmax at that number's temperature, then (when
        ``widened``) the heap widening."""
        def one(rows: np.ndarray, v: int) -> np.ndarray:
            p = calibrated(rows, self.temperature_for(v))
            return self.widened(p) if widened else p

        if np.ndim(views) == 0:
            return one(logits, int(views))  # type: ignore[arg-type]
        each = np.asarray(views, int)
        out = np.zeros((len(logits), N_COUNTS), np.float64)
        for v in np.unique(each):
            rows = each == v
            out[rows] = one(logits[rows], int(v))
        return out

    def probabilities(self, crops: list[np.ndarray], views: int = 1) -> np.ndarray:
        """Calibrated distributions (rows over 0..40) for square BGR uint8 crops, the
        logits averaged over ``views`` turned views of each crop (:meth:`mean_logits`)."""
        return self.calibrate(self.mean_logits(self.inputs(crops), views), views)

    def temperature_for(self, views: int) -> float:
        """The softmax temperature fitted for logits averaged over ``views`` views."""
        if self.temperatures is not None and 1 <= views <= len(self.temperatures):
            return self.temperatures[views - 1]
        return self.temperature

    def widened(self, p: np.ndarray) -> np.ndarray:
        """``p`` with this model's heap widening applied (:func:`widen`)."""
        w, start, up, tail, tail_up = self.widening
        return widen(p, w, start, up, tail, tail_up) if max(w, up, tail * tail_up) > 0 else p


@functools.lru_cache(maxsize=4)
def load_net(path: Path = MODEL_PATH, backend: str = "auto") -> CountNet:
    return CountNet(path, backend)
