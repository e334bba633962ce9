"""A warm session's structural index: every change to a file is seen by the next search,
which answers exactly what a cold search answers, and unchanged files are not read again."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

import xcsh.structural.scan.warm as warm_module
from warm_scenario import CHANGES, PATTERN, SETTLE_SECONDS, make_workspace, run_change
from xcsh import PendingActionStore
from xcsh.app import Settings, open_index
from xcsh.core import UsageError
from xcsh.structural.scan.warm import Fingerprint, WarmIndex
from xcsh.structural.scan.warm_cache import parse_index_memory
from xcsh.tools import create_ast_edit_tool, create_ast_grep_tool, create_resolve_tool


class Reads:
    """Counts the files the index reads."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        real = warm_module.read_regular_bytes

        def counted(path: Path | str, limit: int | None = None) -> bytes:
            self.paths.append(Path(path).name)
            return real(path, limit)

        monkeypatch.setattr(warm_module, "read_regular_bytes", counted)

    def take(self) -> list[str]:
        taken, self.paths = sorted(self.paths), []
        return taken


async def _text(tool: Any, **params: Any) -> str:
    result = await tool.execute("call", params)
    assert not result.is_error, result.text
    return str(result.text)


async def test_each_change_behind_the_index_is_seen_as_a_cold_search_sees_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_workspace(tmp_path / "ws")
    reads = Reads(monkeypatch)
    warm = create_ast_grep_tool(str(root), index=WarmIndex())
    time.sleep(SETTLE_SECONDS)
    cold = await _text(create_ast_grep_tool(str(root)), pat=[PATTERN])
    assert await _text(warm, pat=[PATTERN]) == cold
    assert reads.take() == ["a.py", "b.py", "c.py", "d.py"]
    assert await _text(warm, pat=[PATTERN]) == cold
    assert reads.take() == [], "unchanged files are answered without reading them"
    for name, source in CHANGES:
        run_change(source, root)
        cold = await _text(create_ast_grep_tool(str(root)), pat=[PATTERN])
        assert await _text(warm, pat=[PATTERN]) == cold, name
    assert "build/new.py" in cold or "build/" not in cold


async def test_a_search_reads_only_the_files_whose_words_can_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_workspace(tmp_path / "ws")
    reads = Reads(monkeypatch)
    warm = create_ast_grep_tool(str(root), index=WarmIndex(memory=0))
    time.sleep(SETTLE_SECONDS)
    await _text(warm, pat=[PATTERN])
    reads.take()
    text = await _text(warm, pat=["h($A)"])
    assert reads.take() == ["c.py"]  # the only file holding the word `h`
    assert text == await _text(create_ast_grep_tool(str(root)), pat=["h($A)"])
    assert await _text(warm, pat=["nowhere($A)"]) == await _text(
        create_ast_grep_tool(str(root)), pat=["nowhere($A)"]
    )
    assert reads.take() == []


async def test_previews_and_applies_through_the_index_match_cold_ones(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    index = WarmIndex()
    store = PendingActionStore()
    warm_edit = create_ast_edit_tool(str(root), store, index=index)
    warm_grep = create_ast_grep_tool(str(root), index=index)
    time.sleep(SETTLE_SECONDS)
    ops = [{"pat": PATTERN, "out": "h($A)"}]
    await _text(warm_grep, pat=[PATTERN])
    cold = await _text(create_ast_edit_tool(str(root), PendingActionStore()), ops=ops)
    assert await _text(warm_edit, ops=ops) == cold
    applied = await create_resolve_tool(store).execute("r", {"action": "apply", "reason": "t"})
    assert not applied.is_error, applied.text
    assert "g(" not in (root / "pkg" / "b.py").read_text()
    for pat in (PATTERN, "h($A)"):
        assert await _text(warm_grep, pat=[pat]) == await _text(
            create_ast_grep_tool(str(root)), pat=[pat]
        )


async def test_a_file_changed_as_it_was_read_is_read_again_even_on_a_coarse_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a file system whose times have whole seconds, a change in the second of the
    read keeps the fingerprint: such a file is never trusted."""

    def coarse(info: os.stat_result) -> Fingerprint:
        second = 1_000_000_000
        return Fingerprint(
            info.st_size,
            info.st_mtime_ns // second * second,
            info.st_ctime_ns // second * second,
            info.st_ino,
            info.st_dev,
        )

    monkeypatch.setattr(Fingerprint, "of", staticmethod(coarse))
    root = tmp_path / "ws"
    root.mkdir()
    target = root / "m.py"
    target.write_text("y = g(1)\n")
    warm = create_ast_grep_tool(str(root), index=WarmIndex())
    before = await _text(warm, pat=[PATTERN])
    info = target.stat()
    target.write_text("y = h(1)\n")
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
    after = await _text(warm, pat=[PATTERN])
    assert "m.py" in before and after == await _text(create_ast_grep_tool(str(root)), pat=[PATTERN])


async def test_a_small_memory_still_answers_right_and_stays_under_it(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    for number in range(40):
        (root / "src" / f"m{number}.py").write_text(f"v{number} = g({number})\n" * 50)
    index = WarmIndex(memory=64 * 1024)
    warm = create_ast_grep_tool(str(root), index=index)
    for pat in (PATTERN, "v1 = $A", PATTERN):
        cold = await _text(create_ast_grep_tool(str(root)), pat=[pat], limit=1000)
        assert await _text(warm, pat=[pat], limit=1000) == cold
        assert 0 < index.used <= 64 * 1024


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, 0), (1024, 1024), ("256 MiB", 256 * 1024**2), ("1GiB", 1024**3), ("64 kib", 65536)],
)
def test_index_memory_accepts_bytes_or_a_size(value: object, expected: int) -> None:
    assert parse_index_memory(value, "settings.toml") == expected


@pytest.mark.parametrize("value", [-1, "lots", "12 TB", True, 1.5])
def test_a_bad_index_memory_names_the_setting_and_the_fix(value: object, tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        settings = Settings.from_values({"index_memory": value}, tmp_path / "settings.toml")
        open_index(tmp_path, settings)
    assert "index_memory" in str(caught.value) and "MiB" in str(caught.value)


async def test_a_first_search_on_the_scan_pool_keeps_answers_only_for_proven_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"
    (root / "big").mkdir(parents=True)
    filler = "x = 1\n" * 6000  # 36 KB each: 40 files run on the pool
    old = time.time_ns() - 60 * 1_000_000_000
    for number in range(40):
        path = root / "big" / f"m{number:02}.py"
        path.write_text(f"v = g({number})\n{filler}")
        os.utime(path, ns=(old, old))
    time.sleep(SETTLE_SECONDS)
    reads = Reads(monkeypatch)
    pooled: list[int] = []
    real_run = warm_module.run_query

    def run_query(query: Any, scope: Any, progress: Any, workers: Any) -> Any:
        pooled.append(len(scope.files))
        return real_run(query, scope, progress, workers)

    monkeypatch.setattr(warm_module, "run_query", run_query)
    index = WarmIndex()
    warm = create_ast_grep_tool(str(root), index=index)
    cold = await _text(create_ast_grep_tool(str(root)), pat=[PATTERN], limit=100)
    assert await _text(warm, pat=[PATTERN], limit=100) == cold
    assert pooled == [40]
    assert len(reads.take()) == 40  # each read once more in the parent, to index it
    assert await _text(warm, pat=[PATTERN], limit=100) == cold
    assert reads.take() == []
    changed = root / "big" / "m07.py"
    info = changed.stat()
    changed.write_text(f"v = h(7)\n{filler}")
    os.utime(changed, ns=(info.st_atime_ns, info.st_mtime_ns))
    cold = await _text(create_ast_grep_tool(str(root)), pat=[PATTERN], limit=100)
    assert await _text(warm, pat=[PATTERN], limit=100) == cold
    assert reads.take() == ["m07.py"]
    assert pooled == [40], "one changed file is scanned in-process"
