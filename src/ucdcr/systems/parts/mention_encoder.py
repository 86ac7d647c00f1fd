"""A fine-tuned mention encoder (a bi-encoder): every mention alone becomes one vector, and coreferent mentions lie
close, so that the cosine of two vectors ranks candidate pairs before a cross-encoder reads them.

Input of a mention: ``[CLS] side [SEP]``, the side of a pair input of :mod:`ucdcr.systems.parts.pair_encoder` (the
sentence's words around the mention, the mention between ``<m>`` and ``</m>``, cut to ``side_tokens`` subwords). Its
vector: the mean of the encoder's last hidden states from ``<m>`` to ``</m>``, L2-normalised (a dot product is a
cosine).

Training (Held et al. 2021 train their retrieval space so that mentions lie near their gold chains; here the
supervised contrastive loss of Khosla et al. 2020, which asks the same of every mention and its chain's other
mentions): each of ``steps`` steps draws one training group (a gold topic and kind of the training split(s), weighted
by its mentions in chains of two or more), ``chains`` of its chains of two or more mentions with up to ``per_chain``
mentions each, and ``others`` further mentions of the group (singletons and other chains of the topic: the hard
negatives a topic holds). For each drawn mention with a drawn chain partner, the loss is minus the mean, over its
partners, of the log-softmax of ``cosine / temperature`` over all other drawn mentions. AdamW (fused), learning-rate
warm-up over the first tenth of the steps and linear decay to 0, gradients clipped to norm 1; the word-embedding
matrix stays frozen (as the cross-encoder's, :class:`~ucdcr.systems.parts.pair_encoder.PairEncoderConfig`); the
encoder, its threads, precision, device and seed are the cross-encoder's.

Determinism: every draw comes from the seed; vectors are computed in batches of the rows sorted by length (a function
of the split alone). A trained model is cached as ``<cache dir>/mention-encoder/<key>.pt`` (written atomically), the
key (:func:`mention_model_key`) the SHA-256 of both configurations, the hardware, the encoder's identity, the training
groups' inputs and chains, and :data:`VERSION`: a second run reads it instead of training again.

Only a split's spans and words are read to compute its vectors; the training split's gold chains train the model.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ucdcr.errors import UcdcrError
from ucdcr.io.atomic import write_bytes
from ucdcr.systems.framework.base import SplitData
from ucdcr.systems.framework.environment import hardware_identity, require_torch
from ucdcr.systems.parts.pair_encoder import (
    Encoder,
    MarkedMention,
    PairEncoderConfig,
    Progress,
    autocast,
    clock,
    device_of,
    load_encoder,
    marked_mentions,
    pooled,
    torch_settings,
)

VERSION = "1"
FOLDER = "mention-encoder"
TRAINING_UNIT = "topic_id"
LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class MentionEncoderConfig:
    """How the mention encoder learns (module docstring): ``steps`` (one drawn group each), ``chains`` per step,
    ``per_chain`` mentions of each, ``others`` further mentions of the group, ``temperature`` of the loss,
    ``learning_rate``; ``batch_size``: mentions per forward pass when computing vectors."""

    steps: int = 600
    chains: int = 8
    per_chain: int = 4
    others: int = 8
    temperature: float = 0.05
    learning_rate: float = 5e-5
    batch_size: int = 128

    def __post_init__(self) -> None:
        for name in ("steps", "chains", "batch_size"):
            if getattr(self, name) < 1:
                raise UcdcrError(f"mention encoder option {name} must be at least 1, not {getattr(self, name)}")
        if self.per_chain < 2:
            raise UcdcrError(f"mention encoder option per_chain must be at least 2, not {self.per_chain}")
        if self.others < 0:
            raise UcdcrError(f"mention encoder option others must be at least 0, not {self.others}")
        for name in ("temperature", "learning_rate"):
            if not getattr(self, name) > 0:
                raise UcdcrError(f"mention encoder option {name} must be above 0, not {getattr(self, name)}")


@dataclass(frozen=True)
class TrainingGroup:
    """One gold topic and kind of a training split: its mentions' inputs and their chains (as integers)."""

    mentions: list[MarkedMention]
    chains: np.ndarray

    def multi(self) -> list[np.ndarray]:
        """The positions of each chain of at least two mentions, in order of first mention."""
        _, first, inverse, counts = np.unique(self.chains, return_index=True, return_inverse=True, return_counts=True)
        return [np.flatnonzero(inverse == code) for code in np.argsort(first) if counts[code] >= 2]


@dataclass
class MentionSpace:
    """A trained mention encoder: the vectors of a split's mentions (:meth:`vectors`); ``seconds``: training time, 0
    when read from the cache."""

    encoder: Encoder
    model: Any
    pair_config: PairEncoderConfig
    config: MentionEncoderConfig
    key: str
    seconds: float
    cached: bool

    def memo_vectors(self, data: SplitData) -> np.ndarray:
        """:meth:`vectors`, computed once per split and model."""
        return data.memo(f"mention-vectors:{self.key}", lambda: self.vectors(data))

    def vectors(self, data: SplitData) -> np.ndarray:
        """The unit-length vector of every row of ``data`` (float32)."""
        mentions = marked_mentions(data, self.encoder, self.pair_config)
        return encode(self, mentions)

    def describe(self) -> str:
        done = "read from the model cache" if self.cached else f"trained in {self.seconds / 60:.1f} min"
        return f"a mention encoder fine-tuned for {self.config.steps} steps, {done}"


def encode(space: MentionSpace, mentions: Sequence[MarkedMention]) -> np.ndarray:
    """The unit-length vectors of ``mentions``, in batches of the mentions sorted by length."""
    torch = require_torch()
    device = next(space.model.parameters()).device.type
    order = sorted(range(len(mentions)), key=lambda index: (len(mentions[index].ids), index))
    result = np.zeros((len(mentions), int(space.model.config.hidden_size)), dtype=np.float32)
    with torch_settings(space.pair_config), torch.inference_mode():
        for start in range(0, len(order), space.config.batch_size):
            chosen = order[start : start + space.config.batch_size]
            vectors = _vectors(space, [mentions[index] for index in chosen], device)
            result[chosen] = vectors.float().cpu().numpy()
    return result


def _vectors(space: MentionSpace, mentions: Sequence[MarkedMention], device: str) -> Any:
    """The normalised mention vectors of one batch (a torch tensor, with gradients when training)."""
    torch = require_torch()
    tokenizer = space.encoder.tokenizer
    cls, sep, pad = tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id or 0
    length = max(len(mention.ids) for mention in mentions) + 2
    ids = np.full((len(mentions), length), pad, dtype=np.int64)
    attention = np.zeros((len(mentions), length), dtype=np.int64)
    spans = np.zeros((len(mentions), length), dtype=np.float32)
    for row, mention in enumerate(mentions):
        ids[row, : len(mention.ids) + 2] = [cls, *mention.ids, sep]
        attention[row, : len(mention.ids) + 2] = 1
        spans[row, 1 + mention.open : 2 + mention.close] = 1.0
    tensors = [torch.from_numpy(array).to(device) for array in (ids, attention, spans)]
    with autocast(space.pair_config, device):
        states = space.model(input_ids=tensors[0], attention_mask=tensors[1]).last_hidden_state
    return torch.nn.functional.normalize(pooled(states.float(), tensors[2]), dim=-1)


def training_groups(
    train: Sequence[SplitData], encoder: Encoder, pair_config: PairEncoderConfig
) -> list[TrainingGroup]:
    """Every gold topic and kind of the training splits with a chain of two or more mentions."""
    from ucdcr.systems.parts.candidates import groups

    result = []
    for data in train:
        mentions = marked_mentions(data, encoder, pair_config)
        chains = np.unique(np.array([str(chain) for chain in data.column("coref_chain")]), return_inverse=True)[1]
        for rows in groups(data, TRAINING_UNIT):
            group = TrainingGroup([mentions[row] for row in rows], chains[rows])
            if group.multi():
                result.append(group)
    return result


def mention_model_key(
    pair_config: PairEncoderConfig, config: MentionEncoderConfig, groups: Sequence[TrainingGroup], identity: str
) -> str:
    """The cache key of a mention encoder (module docstring)."""
    digest = hashlib.sha256()
    for group in groups:
        sides = [[mention.ids, mention.open, mention.close] for mention in group.mentions]
        digest.update(json.dumps([sides, group.chains.tolist()]).encode())
    inherited = ("encoder", "window", "side_tokens", "seed", "threads", "precision", "train_embeddings")
    parts = {
        "config": {name: value for name, value in asdict(config).items() if name != "batch_size"},
        "encoder config": {name: getattr(pair_config, name) for name in inherited},
        "hardware": hardware_identity(device_of(pair_config)),
        "encoder": identity,
        "groups": digest.hexdigest(),
        "version": VERSION,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def train_mention_space(
    train: Sequence[SplitData],
    pair_config: PairEncoderConfig,
    config: MentionEncoderConfig,
    cache_dir: Path | None,
    progress: Progress | None = None,
) -> MentionSpace:
    """The mention encoder trained on the training splits' chains (module docstring), or the cached one."""
    torch = require_torch()
    encoder = load_encoder(pair_config)
    groups = training_groups(train, encoder, pair_config)
    if not groups:
        raise UcdcrError(f"{', '.join(data.dataset for data in train)}: no chain of two mentions to train on")
    device = device_of(pair_config)
    key = mention_model_key(pair_config, config, groups, encoder.identity)
    path = None if cache_dir is None else cache_dir / FOLDER / f"{key}.pt"
    model = encoder.model.to(device)
    space = MentionSpace(encoder, model, pair_config, config, key, 0.0, True)
    if path is not None and path.is_file():
        model.load_state_dict(torch.load(path, map_location=device, weights_only=True))
        model.eval()
        return space
    started = time.perf_counter()
    with torch_settings(pair_config):
        _train(space, groups, device, progress or LOG.info)
    model.eval()
    space.seconds, space.cached = time.perf_counter() - started, False
    if path is not None:
        buffer = io.BytesIO()
        torch.save(model.state_dict(), buffer)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(path, buffer.getvalue())
    return space


def _train(space: MentionSpace, groups: Sequence[TrainingGroup], device: str, progress: Progress) -> None:
    torch = require_torch()
    config, model = space.config, space.model
    torch.manual_seed(space.pair_config.seed)
    rng = np.random.default_rng([space.pair_config.seed, 7])
    model.get_input_embeddings().weight.requires_grad_(space.pair_config.train_embeddings)
    parameters = [parameter for parameter in model.parameters() if parameter.requires_grad]
    optimizer = torch.optim.AdamW(parameters, lr=config.learning_rate, fused=True)
    warmup = max(1, config.steps // 10)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda step: min((step + 1) / warmup, max(0.0, (config.steps - step) / max(1, config.steps - warmup))),
    )
    chains = [group.multi() for group in groups]
    weights = np.array([sum(len(chain) for chain in multi) for multi in chains], dtype=np.float64)
    model.train()
    started, told, losses = time.perf_counter(), 0.0, []
    for step in range(config.steps):
        index = int(rng.choice(len(groups), p=weights / weights.sum()))
        drawn = _draw(rng, chains[index], len(groups[index].mentions), config)
        vectors = _vectors(space, [groups[index].mentions[row] for row in drawn], device)
        loss = contrastive_loss(vectors, groups[index].chains[drawn], config.temperature)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(parameters, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        losses.append(loss.item())
        elapsed = time.perf_counter() - started
        if elapsed - told >= 30 or step + 1 == config.steps:
            told = elapsed
            progress(
                f"mention encoder: step {step + 1}/{config.steps}, loss {np.mean(losses[-50:]):.3f}, "
                f"ETA {clock(elapsed / (step + 1) * (config.steps - step - 1))}"
            )


def _draw(
    rng: np.random.Generator, chains: Sequence[np.ndarray], size: int, config: MentionEncoderConfig
) -> np.ndarray:
    """One step's mentions (positions in the group): drawn chains' mentions, then other mentions of the group."""
    picked = rng.choice(len(chains), size=min(config.chains, len(chains)), replace=False)
    drawn = [rng.choice(chains[pick], size=min(config.per_chain, len(chains[pick])), replace=False) for pick in picked]
    rest = np.setdiff1d(np.arange(size), np.concatenate(drawn))
    others = rng.choice(rest, size=min(config.others, len(rest)), replace=False)
    return np.concatenate([*drawn, others]).astype(np.int64)


def contrastive_loss(vectors: Any, chains: np.ndarray, temperature: float) -> Any:
    """The supervised contrastive loss (module docstring) of unit-length ``vectors`` with their ``chains``."""
    torch = require_torch()
    same = torch.from_numpy(chains[:, None] == chains[None, :]).to(vectors.device)
    itself = torch.eye(len(chains), dtype=torch.bool, device=vectors.device)
    partners = same & ~itself
    logits = (vectors @ vectors.T / temperature).masked_fill(itself, float("-inf"))
    log_probability = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    counts = partners.sum(dim=1)
    anchored = counts > 0
    per_mention = log_probability.masked_fill(~partners, 0.0).sum(dim=1)[anchored] / counts[anchored]
    return -per_mention.mean()
