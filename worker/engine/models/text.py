"""Models of token sequences (`text` data, e.g. LEAF's Shakespeare and Sent140): LEAF's
character LSTM, LEAF's Sent140 LSTM and a small transformer classifier. Each reads the
token ids as they come (LEAF's Shakespeare holds them as bytes, Sent140 as int16) and
embeds them."""

from __future__ import annotations

import math

import torch
from pydantic import Field, model_validator
from torch import Tensor, nn

from worker.engine.facts import ModelFacts
from worker.engine.params import Params, RunShape
from worker.engine.registry import model
from worker.engine.sections import ModelSection

TEXT = ModelFacts(inputs=("text",))


class Vocabulary(Params):
    vocabulary: int = Field(
        80, ge=2, description="Token ids the embedding holds (80: LEAF's Shakespeare characters)."
    )

    def check_run(self, run: RunShape) -> None:
        """The embedding holds every token id the dataset uses (`DatasetFacts.tokens`)."""
        if run.data.tokens is not None and self.vocabulary < run.data.tokens:
            raise ValueError(
                f"model.{run.model}.vocabulary: {run.dataset}'s token ids run to "
                f"{run.data.tokens - 1}; set it to {run.data.tokens} or more"
            )


class LeafLstmParams(Vocabulary):
    embedding: int = Field(8, ge=1, description="Embedding size (LEAF: 8).")
    hidden: int = Field(256, ge=1, description="Units of each LSTM layer (LEAF: 256).")
    layers: int = Field(2, ge=1, le=8, description="Stacked LSTM layers (LEAF: 2).")


class CharLstm(nn.Module):
    """LEAF's Shakespeare model (`models/shakespeare/stacked_lstm.py`): embedding, stacked
    LSTM, and the logits of the next token from the last position's output."""

    def __init__(self, p: LeafLstmParams, n_classes: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(p.vocabulary, p.embedding)
        self.lstm = nn.LSTM(p.embedding, p.hidden, p.layers, batch_first=True)
        self.fc = nn.Linear(p.hidden, n_classes)

    def forward(self, tokens: Tensor) -> Tensor:
        out, _ = self.lstm(self.embed(tokens.long()))
        return self.fc(out[:, -1])


@model("leaf_lstm", facts=TEXT, params=LeafLstmParams, label="LEAF's character LSTM")
def leaf_lstm(
    params: LeafLstmParams, cfg: ModelSection, shape: tuple[int, ...], n_classes: int
) -> nn.Module:
    return CharLstm(params, n_classes)


class TransformerParams(Vocabulary):
    width: int = Field(64, ge=1, description="Model width d (embedding and attention).")
    heads: int = Field(4, ge=1, description="Attention heads; they divide the width.")
    layers: int = Field(2, ge=1, le=12, description="Encoder layers.")
    feedforward: int = Field(128, ge=1, description="Hidden units of each feed-forward block.")

    @model_validator(mode="after")
    def _heads_divide_width(self) -> TransformerParams:
        if self.width % self.heads:
            raise ValueError(f"heads: {self.heads} heads do not divide the width {self.width}")
        return self


class EncoderLayer(nn.Module):
    """Pre-norm self-attention and feed-forward, each added to its input. Attention is
    written out in products (not `nn.MultiheadAttention`), so `torch.func.vmap` batches
    every operation of it."""

    def __init__(self, width: int, heads: int, feedforward: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.ff = nn.Sequential(
            nn.Linear(width, feedforward), nn.ReLU(), nn.Linear(feedforward, width)
        )

    def forward(self, h: Tensor) -> Tensor:
        b, length, width = h.shape
        q, k, v = (
            t.reshape(b, length, self.heads, -1).transpose(1, 2)
            for t in self.qkv(self.norm1(h)).chunk(3, dim=-1)
        )
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        mixed = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, length, width)
        h = h + self.out(mixed)
        return h + self.ff(self.norm2(h))


class TransformerClassifier(nn.Module):
    """Token and learned position embeddings, encoder layers, the mean over positions,
    and the class logits."""

    def __init__(self, p: TransformerParams, length: int, n_classes: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(p.vocabulary, p.width)
        self.position = nn.Parameter(torch.zeros(length, p.width))
        nn.init.normal_(self.position, std=0.02)
        self.layers = nn.Sequential(
            *(EncoderLayer(p.width, p.heads, p.feedforward) for _ in range(p.layers))
        )
        self.norm = nn.LayerNorm(p.width)
        self.fc = nn.Linear(p.width, n_classes)

    def forward(self, tokens: Tensor) -> Tensor:
        h = self.layers(self.embed(tokens.long()) + self.position)
        return self.fc(self.norm(h).mean(dim=1))


@model("transformer", facts=TEXT, params=TransformerParams, label="transformer text classifier")
def transformer(
    params: TransformerParams, cfg: ModelSection, shape: tuple[int, ...], n_classes: int
) -> nn.Module:
    return TransformerClassifier(params, shape[0], n_classes)


class Sent140LstmParams(Vocabulary):
    vocabulary: int = Field(
        10_001,
        ge=2,
        description="Token ids the embedding holds (10 001: sent140's 10 000 words and its "
        "unknown id).",
    )
    hidden: int = Field(
        100, ge=1, description="Embedding size and units of each LSTM layer (LEAF: 100)."
    )
    layers: int = Field(2, ge=1, le=8, description="Stacked LSTM layers (LEAF: 2).")
    dense: int = Field(
        128, ge=1, description="Units of the dense layer before the logits (LEAF: 128)."
    )


class Sent140Lstm(nn.Module):
    """LEAF's Sent140 model (`models/sent140/stacked_lstm.py`): an embedding as wide as
    the LSTM, stacked LSTM layers, and from the last position's output a dense layer
    without activation, then the class logits."""

    def __init__(self, p: Sent140LstmParams, n_classes: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(p.vocabulary, p.hidden)
        self.lstm = nn.LSTM(p.hidden, p.hidden, p.layers, batch_first=True)
        self.dense = nn.Linear(p.hidden, p.dense)
        self.fc = nn.Linear(p.dense, n_classes)

    def forward(self, tokens: Tensor) -> Tensor:
        out, _ = self.lstm(self.embed(tokens.long()))
        return self.fc(self.dense(out[:, -1]))


@model("sent140_lstm", facts=TEXT, params=Sent140LstmParams, label="LEAF's Sent140 LSTM")
def sent140_lstm(
    params: Sent140LstmParams, cfg: ModelSection, shape: tuple[int, ...], n_classes: int
) -> nn.Module:
    return Sent140Lstm(params, n_classes)
