"""The SDK's safetensors header check: a file's header must describe its body exactly
(known dtypes, shapes whose bytes its offsets hold, the tensors back to back to its
end) before a tensor is read, so that no header makes a reader allocate more than the
file holds."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest

from fedwatch import tensorfile


def with_header(header: dict[str, Any], body: bytes) -> bytes:
    text = json.dumps(header).encode()
    return len(text).to_bytes(8, "little") + text + body


def test_a_file_s_tensors_are_read_from_its_header() -> None:
    data = tensorfile.dumps({"w": np.zeros((2, 3), np.float32), "n": np.arange(3)})
    header = tensorfile.read_header(data)
    body = len(data) - 8 - tensorfile.header_size(data)

    found = tensorfile.check_header(header, body)

    assert body == 2 * 3 * 4 + 3 * 8  # 24 bytes of F32, 24 of I64
    assert found == {"w": ("F32", [2, 3]), "n": ("I64", [3])}


W = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}


@pytest.mark.parametrize(
    ("header", "body", "problem"),
    [
        ({"w": {**W, "dtype": "U32"}}, 8, "tensor 'w': dtype 'U32' is not one of F64,"),
        ({"w": {**W, "shape": [1]}}, 8,
         "tensor 'w': F32 of shape [1] is 4 bytes, its offsets hold 8"),
        ({"w": {**W, "shape": [100_000, 100_000]}}, 8,
         "tensor 'w': F32 of shape [100000, 100000] is more than the file's body of 8 bytes"),
        ({"w": {**W, "shape": [10**9] * 10**5}}, 8,
         "tensor 'w': F32 of shape [1000000000, 1000000000, 1000000000, 1000000000, 1000000000, "),
        ({"w": {**W, "shape": [10**9, 0], "data_offsets": [0, 0]}, "v": W}, 8, None),
        ({"w": {**W, "shape": [2] * 10**5}}, 8, "tensor 'w': F32 of shape [2, 2, 2, 2"),
        ({"w": {**W, "shape": [-2]}}, 8, "tensor 'w': shape [-2] is not a list of counts"),
        ({"w": {**W, "shape": [True]}}, 8, "tensor 'w': shape [True] is not a list of counts"),
        ({"w": {**W, "data_offsets": [0]}}, 8, "tensor 'w': data_offsets [0] are not"),
        ({"w": {**W, "data_offsets": [4, 12]}}, 12, "tensor 'w': begins at 4, not at 0"),
        ({"w": W, "v": W}, 8, "tensor 'w': begins at 0, not at 8"),
        ({"w": W}, 9, "the tensors hold 8 bytes, the file's body 9"),
        ({"w": [1]}, 8, "tensor 'w': not a tensor's entry"),
    ],
)  # fmt: skip
def test_a_header_that_does_not_describe_its_body_is_refused(
    header: dict[str, Any], body: int, problem: str | None
) -> None:
    if problem is None:  # an empty tensor of a huge dimension is no problem
        assert tensorfile.check_header(header, body)["w"] == ("F32", [10**9, 0])
        return
    with pytest.raises(ValueError, match="^" + re.escape(problem)) as raised:
        tensorfile.check_header(header, body)
    assert len(str(raised.value)) < 200


def test_an_unknown_dtype_is_a_clear_error_not_a_key_error() -> None:
    data = with_header({"w": {**W, "dtype": "U32"}}, bytes(8))

    with pytest.raises(ValueError, match="tensor 'w': dtype 'U32' is not one of") as raised:
        tensorfile.to_torch(data)

    assert not isinstance(raised.value, KeyError)


def test_a_header_longer_than_the_cap_is_refused_before_it_is_read() -> None:
    first = (tensorfile.MAX_HEADER_BYTES + 1).to_bytes(8, "little")

    with pytest.raises(ValueError, match=f"a header of {tensorfile.MAX_HEADER_BYTES + 1} bytes"):
        tensorfile.header_size(first)
    assert tensorfile.header_size(tensorfile.MAX_HEADER_BYTES.to_bytes(8, "little")) == 16 << 20


def test_a_header_nested_past_the_stack_is_not_json() -> None:
    with pytest.raises(ValueError, match="its header is not JSON"):
        tensorfile.parse_header(b"[" * 100_000 + b"]" * 100_000)
