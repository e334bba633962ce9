"""How search records reach standard output: in blocks to a pipe, one by one to a terminal,
and a process of xcsh's own ended as soon as they are all out."""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import run_ast_grep, run_xcsh

from xcsh.cli import main
from xcsh.cli.stdout import BLOCK_CHARS, BlockWriter


class CountingStream(io.StringIO):
    """A text stream that counts the writes it receives (not a terminal)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


def test_records_reach_a_pipe_in_blocks() -> None:
    stream = CountingStream()
    writer = BlockWriter(stream)
    records = [f'{{"n":{i},"pad":"{"x" * 1000}"}}\n' for i in range(2000)]
    for record in records:
        writer.write(record)
    writer.flush()
    assert stream.getvalue() == "".join(records)
    total = sum(map(len, records))
    assert stream.writes <= total // BLOCK_CHARS + 1  # not one write per record
    writer.flush()  # nothing left: nothing more written
    assert stream.writes <= total // BLOCK_CHARS + 1


def test_on_a_terminal_each_record_is_written_at_once() -> None:
    leader, follower = os.openpty()
    try:
        stream = io.TextIOWrapper(io.FileIO(follower, "w", closefd=False), write_through=True)
        writer = BlockWriter(stream)
        writer.write("app.py:1:1:print(1)\n")
        ready, _, _ = select.select([leader], [], [], 5)
        assert ready, "the record waited in a block on a terminal"
        assert b"print(1)" in os.read(leader, 1024)
    finally:
        os.close(leader)
        os.close(follower)


def _project(root: Path) -> Path:
    (root / "many.py").write_text("".join(f"print({i}, 'x')\n" for i in range(5000)))
    (root / "blob.py").write_bytes(b"print(1)\x00\x01")
    return root


def test_an_unbuffered_search_prints_every_record_and_its_notes(tmp_path: Path) -> None:
    # PYTHONUNBUFFERED=1, as many container images set it: the records still come out
    # whole, and the process that ends itself at once still flushes stderr's note.
    done = run_xcsh(
        "ast-grep", "-p", "print($$$A)", "--json", cwd=_project(tmp_path), PYTHONUNBUFFERED="1"
    )
    assert done.returncode == 0, done.stderr
    found = [json.loads(line) for line in done.stdout.splitlines()]
    assert [m["text"] for m in found] == [f"print({i}, 'x')" for i in range(5000)]
    assert "xcsh: Skipped 1 file: blob.py (binary)." in done.stderr


def test_an_unbuffered_edit_preview_in_json_equals_the_cli(tmp_path: Path) -> None:
    project = _project(tmp_path)
    args = ("-p", "print($$$A)", "-r", "show($$$A)")
    ours = run_xcsh("ast-edit", *args, "--json", cwd=project, PYTHONUNBUFFERED="1")
    theirs = run_ast_grep("run", *args, "-l", "python", "--json=stream", cwd=project)
    assert ours.returncode == 0, ours.stderr
    mine = [json.loads(line) for line in ours.stdout.splitlines()]
    assert len(mine) == 5000
    assert mine == [json.loads(line) for line in theirs.stdout.splitlines()]


def test_the_xcsh_process_ends_without_exit_handlers_once_output_is_out(tmp_path: Path) -> None:
    marker = tmp_path / "exit-handlers-ran"
    script = (
        "import atexit, pathlib, sys\n"
        f"atexit.register(pathlib.Path({str(marker)!r}).touch)\n"
        "from xcsh.cli import main\n"
        "sys.argv = ['xcsh', 'ast-grep', '-p', 'print($$$A)', '-l', 'python', '--json']\n"
        "sys.exit(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=_project(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 5000
    assert "Skipped 1 file" in done.stderr
    assert not marker.exists()  # ended at once: the last tree was never freed
    nothing = subprocess.run(  # no match: nothing kept, an ordinary exit
        [sys.executable, "-c", script.replace("print($$$A)", "nowhere($A)")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert nothing.returncode == 1
    assert marker.exists()


def test_a_caller_of_main_always_gets_the_exit_code_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(_project(tmp_path))
    assert main(["ast-grep", "-p", "print($$$A)", "-l", "python", "--json"]) == 0
    assert main(["scan", "--rule", str(_rule(tmp_path)), "--json"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 10000


def _rule(root: Path) -> Path:
    rule = root / "rule.yml"
    rule.write_text("id: p\nlanguage: python\nrule:\n  pattern: print($$$A)\n")
    return rule
