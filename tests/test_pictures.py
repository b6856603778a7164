"""``python -m docgen.pictures`` makes the docs' pictures from its scripted scene: each one
at its size, a page that loaded (no page error: the script waits for each page's content)."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from docgen import pictures

pytestmark = pytest.mark.skipif(not os.path.exists(pictures.CHROMIUM),
                                reason=f"{pictures.CHROMIUM} missing (python3 dev.py test "
                                "installs it)")


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    width, height = struct.unpack(">II", head[16:24])
    return width, height


async def test_the_pictures_of_the_docs_are_made_by_the_script(tmp_path: Path) -> None:
    made = await pictures.take(tmp_path)
    assert [p.name for p in made] == list(pictures.SHOTS)
    sizes = dict(zip(pictures.SHOTS, (pictures.LAPTOP, pictures.LAPTOP, pictures.PHONE,
                                      pictures.STREAM), strict=True))
    for path in made:
        assert png_size(path) == sizes[path.name]
        assert path.stat().st_size > 20_000  # a page drawn, not a blank one
    # the pictures the docs show are the script's, all of them there
    shown = Path(__file__).resolve().parent.parent / "docs" / "pictures"
    assert sorted(p.name for p in shown.glob("*.png")) == sorted(pictures.SHOTS)
