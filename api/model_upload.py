"""An uploaded model file read as it arrives: its safetensors header first (the 8-byte
length, then the JSON), checked against the body's declared length before the body is
read, then the rest copied through to a spool file, a chunk at a time."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import IO, Any

from fedwatch import tensorfile


async def spool_model(chunks: AsyncIterator[bytes], declared: int | None, into: IO[bytes]) -> int:
    """Copy the file from `chunks` into `into`, checking its header before its body
    (against `declared`, the file's length where the request states it, else against
    the body once it is read); its length, or ValueError saying what is wrong."""
    head = bytearray()  # the header, held until it is whole: at most MAX_HEADER_BYTES
    header: dict[str, Any] | None = None
    size = total = 0
    async for chunk in chunks:
        total += len(chunk)
        if header is not None:
            into.write(chunk)
            continue
        head += chunk
        if len(head) < 8 or len(head) < 8 + (size := tensorfile.header_size(head)):
            continue
        header = tensorfile.parse_header(bytes(head[8 : 8 + size]))
        if declared is not None:
            check(header, declared - 8 - size)
        into.write(head)
        head.clear()
    if header is None:
        raise ValueError("not a safetensors file: shorter than its header")
    check(header, total - 8 - size)
    return total


def check(header: dict[str, Any], body_bytes: int) -> None:
    """ValueError unless the header describes at least one tensor, and a body of
    `body_bytes` exactly."""
    if not tensorfile.check_header(header, body_bytes):
        raise ValueError("the file holds no tensor")
