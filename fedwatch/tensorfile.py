"""safetensors files with the standard library only: the SDK writes a state dict of
torch tensors or numpy arrays (`run.log_model`) and reads one back (`fw.run(id).model()`)
without the `safetensors` package, on nodes that have nothing but Python and their
training code.

The format (huggingface/safetensors): 8 bytes, the little-endian length of a JSON
header; the header, `{name: {"dtype", "shape", "data_offsets": [begin, end]},
"__metadata__": {str: str}}`, padded with spaces to a multiple of 8; then the tensors'
bytes, little-endian, C order, at those offsets.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

CODES = {
    "float64": "F64",
    "float32": "F32",
    "float16": "F16",
    "bfloat16": "BF16",
    "int64": "I64",
    "int32": "I32",
    "int16": "I16",
    "int8": "I8",
    "uint8": "U8",
    "bool": "BOOL",
}
NAMES = {code: name for name, code in CODES.items()}
Entry = tuple[str, list[int], bytes]  # dtype name, shape, raw bytes
SUFFIX = ".safetensors"
MEDIA_TYPE = "application/octet-stream"  # how a model file is sent and served


def dumps(tensors: Mapping[str, Any], metadata: Mapping[str, str] | None = None) -> bytes:
    """A safetensors file of `tensors` (torch tensors or numpy arrays, on any device)."""
    if sys.byteorder != "little":
        raise RuntimeError("safetensors files are little-endian; this machine is not")
    header: dict[str, Any] = {}
    chunks, offset = [], 0
    for name in tensors:
        dtype, shape, raw = _entry(tensors[name], name)
        header[name] = {"dtype": CODES[dtype], "shape": shape,
                        "data_offsets": [offset, offset + len(raw)]}  # fmt: skip
        chunks.append(raw)
        offset += len(raw)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + b"".join(chunks)


def _entry(value: Any, name: str) -> Entry:
    if hasattr(value, "detach"):  # a torch tensor
        import torch

        t = value.detach().cpu().contiguous()
        dtype = str(t.dtype).removeprefix("torch.")
        if dtype not in CODES:
            raise ValueError(f"{name}: dtype {dtype} has no safetensors code")
        return dtype, list(t.shape), t.reshape(-1).view(torch.uint8).numpy().tobytes()
    if hasattr(value, "dtype") and hasattr(value, "tobytes"):  # a numpy array
        import numpy as np

        a = np.ascontiguousarray(value)
        dtype = a.dtype.name
        if dtype not in CODES:
            raise ValueError(f"{name}: dtype {dtype} has no safetensors code")
        return dtype, list(a.shape), a.astype(a.dtype.newbyteorder("<")).tobytes()
    raise TypeError(f"{name}: a torch tensor or a numpy array, not {type(value).__name__}")


def read_header(data: bytes) -> dict[str, Any]:
    """The JSON header of a safetensors file, read without its tensors; ValueError for
    anything that is not one."""
    if len(data) < 8:
        raise ValueError("not a safetensors file: shorter than its header")
    size = int.from_bytes(data[:8], "little")
    try:
        parsed = json.loads(data[8 : 8 + size])
    except ValueError:
        raise ValueError("not a safetensors file: its header is not JSON") from None
    if not isinstance(parsed, dict):
        raise ValueError("not a safetensors file: its header is not an object")
    return parsed


def loads(data: bytes) -> tuple[dict[str, Entry], dict[str, str]]:
    """The tensors (dtype name, shape, bytes) and the metadata of a safetensors file;
    ValueError for anything else."""
    header = read_header(data)
    metadata = header.pop("__metadata__", None) or {}
    body = memoryview(data)[8 + int.from_bytes(data[:8], "little") :]
    out = {}
    for name, spec in header.items():
        begin, end = spec["data_offsets"]
        out[name] = (NAMES[spec["dtype"]], list(spec["shape"]), bytes(body[begin:end]))
    return out, dict(metadata)


def to_torch(data: bytes) -> dict[str, Any]:
    """The file's tensors as a state dict of torch tensors."""
    import torch

    tensors, _ = loads(data)
    out = {}
    for name, (dtype, shape, raw) in tensors.items():
        kind = getattr(torch, dtype)
        flat = torch.frombuffer(bytearray(raw), dtype=kind) if raw else torch.empty(0, dtype=kind)
        out[name] = flat.reshape(shape)
    return out
