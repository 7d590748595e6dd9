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
ITEM_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2,
              "I8": 1, "U8": 1, "BOOL": 1}  # fmt: skip
# The largest header read: its JSON is held in memory whole, before any tensor (the
# safetensors library allows 100 MB; 16 MiB describes some 150 000 tensors).
MAX_HEADER_BYTES = 16 << 20
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


class ModelFileError(ValueError):
    """A model file that is not what it says: a reader refuses it rather than falling
    back to another reading of it."""


def header_size(first: bytes | bytearray) -> int:
    """The length of the JSON header that the file's first 8 bytes announce."""
    if len(first) < 8:
        raise ValueError("not a safetensors file: shorter than its header")
    size = int.from_bytes(first[:8], "little")
    if size > MAX_HEADER_BYTES:
        raise ValueError(f"not a safetensors file: a header of {size} bytes "
                         f"(at most {MAX_HEADER_BYTES})")  # fmt: skip
    return size


def parse_header(text: bytes) -> dict[str, Any]:
    """The header's JSON object; ValueError where it is not one."""
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested past Python's stack
        raise ValueError("not a safetensors file: its header is not JSON") from None
    if not isinstance(parsed, dict):
        raise ValueError("not a safetensors file: its header is not an object")
    return parsed


def read_header(data: bytes) -> dict[str, Any]:
    """The JSON header of a safetensors file, read without its tensors; ValueError for
    anything that is not one."""
    size = header_size(data)
    if len(data) < 8 + size:
        raise ValueError("not a safetensors file: shorter than its header")
    return parse_header(data[8 : 8 + size])


def check_header(header: Mapping[str, Any], body_bytes: int) -> dict[str, tuple[str, list[int]]]:
    """Each tensor's dtype code and shape, once the header is found to describe a body
    of `body_bytes` exactly: a known dtype, a shape of non-negative integers, offsets
    that hold that shape's bytes, the tensors one after another from 0 to the end;
    ValueError naming the first tensor that does not (before anything is allocated)."""
    found: dict[str, tuple[str, list[int]]] = {}
    spans = []
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(spec, dict):
            raise ValueError(f"tensor {name!r}: not a tensor's entry")
        dtype, shape, offsets = spec.get("dtype"), spec.get("shape"), spec.get("data_offsets")
        if dtype not in ITEM_BYTES:
            known = ", ".join(ITEM_BYTES)
            raise ValueError(f"tensor {name!r}: dtype {dtype!r} is not one of {known}")
        if not isinstance(shape, list) or not all(_count(n) for n in shape):
            raise ValueError(f"tensor {name!r}: shape {_brief(shape)} is not a list of counts")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(map(_count, offsets))):
            raise ValueError(
                f"tensor {name!r}: data_offsets {_brief(offsets)} are not [begin, end]"
            )
        size = _bytes(shape, ITEM_BYTES[dtype], body_bytes)
        if size > body_bytes:
            raise ValueError(f"tensor {name!r}: {dtype} of shape {_brief(shape)} is more than "
                             f"the file's body of {body_bytes} bytes")  # fmt: skip
        begin, end = offsets
        if end - begin != size:
            raise ValueError(f"tensor {name!r}: {dtype} of shape {_brief(shape)} is {size} "
                             f"bytes, its offsets hold {end - begin}")  # fmt: skip
        found[name] = (dtype, list(shape))
        spans.append((begin, end, name))
    at = 0
    for begin, end, name in sorted(spans):
        if begin != at:
            raise ValueError(f"tensor {name!r}: begins at {begin}, not at {at}")
        at = end
    if at != body_bytes:
        raise ValueError(f"the tensors hold {at} bytes, the file's body {body_bytes}")
    return found


def _bytes(shape: list[int], item_bytes: int, cap: int) -> int:
    """The bytes of a tensor of `shape`, or a number past `cap` once the product passes
    it (a shape of a million large counts is not multiplied out)."""
    if 0 in shape:
        return 0
    size = item_bytes
    for n in shape:
        size *= n
        if size > cap:
            break
    return size


def _brief(value: Any) -> str:
    """`value`'s repr, cut to 80 characters: an error message quotes what it refuses."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def loads(data: bytes) -> tuple[dict[str, Entry], dict[str, str]]:
    """The tensors (dtype name, shape, bytes) and the metadata of a safetensors file;
    ValueError for anything else, before any tensor is copied."""
    header = read_header(data)
    metadata = header.pop("__metadata__", None) or {}
    body = memoryview(data)[8 + header_size(data) :]
    out = {}
    for name, (code, shape) in check_header(header, len(body)).items():
        begin, end = header[name]["data_offsets"]
        out[name] = (NAMES[code], shape, bytes(body[begin:end]))
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
