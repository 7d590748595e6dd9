"""`flower`: the split Flower Datasets' partitioners make of a Hugging Face dataset
(`data.hf.partitioner`), made by the `hf` dataset itself (`DatasetFacts.partitions`)."""

from __future__ import annotations

from worker.engine.data.partitions.base import Partition
from worker.engine.registry import partition


@partition("flower", label="Flower Datasets partitioner (data.hf.partitioner)")
class Flower(Partition):
    """Made by the `hf` dataset through flwr-datasets (`data/hf.py`): it splits no pool."""

    pools = False
