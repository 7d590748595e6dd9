"""LEAF's Sent140 (tweets labelled by sentiment, one client per Twitter user), read from
LEAF's JSON (`leaf.py`).

A sample of LEAF's files is a tweet's row `[id, date, query, user, text]`, its label 0
(negative) or 1 (positive). The text is tokenised as LEAF's models do it
(`language_utils.split_line`: runs of word characters and apostrophes, and each of
`.,!?;` alone) and its first `SEQUENCE` (25, LEAF's `seq_len`) words kept. LEAF looks
the words up in GloVe's vocabulary, which is not available offline; here the
vocabulary is the train split's `VOCABULARY` most frequent words (ties: the first seen
first), ids 0 to 9 999 by frequency, and every other word, and the padding after a
short tweet, takes the id `UNKNOWN` (10 000), as LEAF gives both the id after its
vocabulary's last.

A word is read as a 64-bit hash of its text (`hashed`), so each file is decoded alone
into an array and cached like the other LEAF sets; the vocabulary is counted from the
train split's hashes when a run loads them (`vocabulary`). Two words share a hash with
a chance of about 10⁻⁷ among a million distinct words (63 bits: a hash is odd).
"""

from __future__ import annotations

import functools
import hashlib
import re
from functools import partial
from typing import Any

import numpy as np
import torch

from worker.engine.data.federated import FederatedData
from worker.engine.data.leaf import Samples, check_layout, file_sizes
from worker.engine.data.leaf_datasets import LeafLoader, natural
from worker.engine.errors import ConfigError
from worker.engine.facts import DatasetFacts
from worker.engine.registry import dataset
from worker.engine.sections import DataSection

SEQUENCE = 25  # LEAF's seq_len for Sent140 (`line_to_indices`' max_words)
VOCABULARY = 10_000
UNKNOWN = VOCABULARY  # an unknown word's id and the padding's, LEAF's len(word2id)
TEXT = 4  # a row's text: [id, date, query, user, text]
PAD = np.uint64(0)  # no word (a hash is odd, never 0)
WORDS = re.compile(r"[\w']+|[.,!?;]")
# A first read holds each sample's hashes twice (`leaf.file_sizes`), and the vocabulary's
# sort of the train hashes as much again; a row parsed holds five strings (about 140
# characters, their objects and the list: some 500 bytes) and its JSON text.
DECODED = 2 * 8 * SEQUENCE
PARSED_ROW = 700

# The whole set (LEAF paper, Table 1: 1 600 498 tweets of 660 120 users) cut 9:1 as
# LEAF's default `--tf 0.9`: what the run's estimates assume; a run reads what is on disk.
SENT140 = DatasetFacts(
    2,
    "text",
    "data_root",
    ("natural",),
    (SEQUENCE,),
    1_440_448,
    160_050,
    users=True,
    layout=partial(check_layout, name="sent140"),
    file_sizes=partial(file_sizes, name="sent140", decoded=DECODED, parsed=PARSED_ROW),
    tokens=VOCABULARY + 1,
    value_bytes=2,
)


def split_line(text: str) -> list[str]:
    """A tweet's words as LEAF splits them: word characters and apostrophes, and each
    of `.,!?;` alone; everything else separates them."""
    return WORDS.findall(text)


@functools.lru_cache(maxsize=1 << 16)
def hashed(word: str) -> int:
    """The word's 64-bit hash, odd (so never `PAD`), the same in every process."""
    digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little") | 1


def tweets(x: list[Any], where: str) -> np.ndarray:
    """A user's tweets (n, SEQUENCE): the hashes of each text's first words, then `PAD`."""
    out = np.zeros((len(x), SEQUENCE), dtype=np.uint64)
    for i, row in enumerate(x):
        if not isinstance(row, list) or len(row) <= TEXT or not isinstance(row[TEXT], str):
            raise ConfigError(
                f"data.root: {where}[{i}]: a row [id, date, query, user, text] expected"
            )
        words = split_line(row[TEXT])[:SEQUENCE]
        out[i, : len(words)] = [hashed(w) for w in words]
    return out


def sentiments(y: list[Any], where: str) -> np.ndarray:
    """A user's labels: 0 (negative) or 1 (positive), as LEAF writes them."""
    if not all(type(v) is int and v in (0, 1) for v in y):
        raise ConfigError(f"data.root: {where}: labels 0 or 1 expected")
    return np.asarray(y, dtype=np.int64)


def vocabulary(hashes: np.ndarray) -> np.ndarray:
    """The `VOCABULARY` most frequent words of `hashes` (padding aside), most frequent
    first, ties in the order they are first seen."""
    words = hashes[hashes != PAD]
    unique, first, counts = np.unique(words, return_index=True, return_counts=True)
    return unique[np.lexsort((first, -counts))[:VOCABULARY]]


def token_ids(hashes: np.ndarray, words: np.ndarray) -> np.ndarray:
    """Each hash's position in `words`, `UNKNOWN` where it is not there (padding too),
    as int16 token ids of the same shape."""
    order = np.argsort(words)
    known = words[order]
    at = np.minimum(np.searchsorted(known, hashes), max(len(known) - 1, 0))
    ids = np.full(hashes.shape, UNKNOWN, dtype=np.int16)
    if len(known):
        hit = known[at] == hashes
        ids[hit] = order[at[hit]]
    return ids


def sent140(params: Any, cfg: DataSection, rng: np.random.Generator) -> FederatedData:
    """LEAF's Sent140 from `data.root`: 25 token ids a sample (int16, the train split's
    vocabulary), the sentiment the label (2 classes)."""
    data, x, xt = natural("sent140", cfg, SENT140.n_classes, Samples(tweets, sentiments))
    words = vocabulary(np.asarray(x))
    data.x_train = torch.from_numpy(token_ids(np.asarray(x), words))
    data.x_test = torch.from_numpy(token_ids(xt, words))
    return data


dataset("sent140", facts=SENT140, label="Sent140 (LEAF, one client per Twitter user)")(
    LeafLoader("sent140", sent140)
)
