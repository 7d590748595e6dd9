"""Names that a user gives for files: what the file system cannot look up is refused
before the lookup, and nothing resolves outside its folder."""

from __future__ import annotations

from pathlib import Path

from worker.engine.paths import MAX_NAME_BYTES, inside, is_dir, is_file, shown, unnamable


def test_a_name_is_refused_for_a_nul_or_a_part_longer_than_a_file_name() -> None:
    assert unnamable("a" * 255) is None
    assert unnamable("a/" * 1000) is None  # long, but each part a short name
    assert unnamable("a\x00b") == "holds the NUL character"
    too_long = "has a part of 256 bytes, longer than a file name may be (255)"
    assert unnamable("a" * 256) == too_long
    assert unnamable("x/" + "é" * 128) == too_long  # 128 characters, 2 bytes each
    assert unnamable("é" * 127) is None  # 254 bytes
    assert MAX_NAME_BYTES == 255


def test_names_are_shown_cut() -> None:
    assert shown("abc") == "'abc'"
    assert shown("a" * 41, 40) == f"'{'a' * 40}'…"


def test_inside_its_folder_only(tmp_path: Path) -> None:
    (tmp_path / "root" / "sub").mkdir(parents=True)
    (tmp_path / "root" / "sub" / "f.txt").write_text("x")
    (tmp_path / "out.txt").write_text("y")
    root = tmp_path / "root"
    assert inside(root, "sub/f.txt") == (root / "sub" / "f.txt").resolve()
    assert inside(root, "sub/../sub/f.txt") == (root / "sub" / "f.txt").resolve()
    assert inside(root, "../out.txt") is None
    assert inside(root, "a\x00") is None
    assert inside(root, "n" * 300) is None
    (root / "loop").symlink_to(root / "loop")
    assert inside(root, "loop") is None  # a loop of links: Python's resolve raises


def test_lookups_past_the_longest_path_are_false(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    assert is_file(tmp_path / "f") and not is_dir(tmp_path / "f")
    assert is_dir(tmp_path) and not is_file(tmp_path)
    past = tmp_path / ("d/" * 2100 + "f")  # 4200+ bytes: ENAMETOOLONG, which Path raises
    assert not is_file(past) and not is_dir(past)
