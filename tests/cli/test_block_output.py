"""How search records reach standard output: in blocks to a pipe, one by one to a terminal,
and a process of xcsh's own ended as soon as they are all out."""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clirun import run_ast_grep, run_xcsh

from xcsh.cli import main
from xcsh.cli.stdout import FILE_BLOCK_CHARS, PIPE_BLOCK_CHARS, BlockWriter, block_size


class CountingStream(io.StringIO):
    """A text stream that keeps the strings it is given, one per write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def test_block_sizes_follow_where_the_output_goes(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    with (
        open(write_end, "w", closefd=True) as pipe,
        open(tmp_path / "out.jsonl", "w") as file,
    ):
        assert block_size(pipe) == PIPE_BLOCK_CHARS == select.PIPE_BUF
        assert block_size(file) == FILE_BLOCK_CHARS
    os.close(read_end)
    assert block_size(io.StringIO()) == 0  # a caller's stream: written as given
    leader, follower = os.openpty()
    with open(follower, "w", closefd=True) as terminal:
        assert block_size(terminal) == 0
    os.close(leader)


def test_records_are_gathered_whole_and_never_past_the_block() -> None:
    stream = CountingStream()
    writer = BlockWriter(stream, block=4096)
    records = [f'{{"n":{i},"pad":"{"x" * (i % 7 * 300)}"}}\n' for i in range(500)]
    records.insert(250, "y" * 10_000 + "\n")  # longer than a block: written alone
    for record in records:
        writer.write(record)
    writer.flush()
    writer.flush()  # nothing left: nothing more written
    assert stream.getvalue() == "".join(records)
    assert len(stream.writes) < len(records) / 3
    for block in stream.writes:
        assert len(block) <= 4096 or block == records[250]
        assert block.endswith("\n")  # whole records only


def test_a_record_the_encoding_cannot_carry_comes_after_every_record_before_it() -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", write_through=True)
    writer = BlockWriter(stream, block=FILE_BLOCK_CHARS)
    for i in range(50):
        writer.write(f"a.py:{i}:1:print({i})\n")
    writer.write("a.py:51:1:print('caf\u00e9')\n")
    with pytest.raises(UnicodeEncodeError):
        writer.flush()
    assert raw.getvalue().decode().splitlines() == [f"a.py:{i}:1:print({i})" for i in range(50)]


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


def _run_main(root: Path, *, pattern: str, before: str = "") -> tuple[int, str, str, str]:
    """``xcsh.cli.main()`` as the console script runs it, in a process whose ``os._exit``
    notes its code in a file first; ``(exit code, stdout, stderr, noted code or "")``."""
    noted = root / "os-exit-code"
    script = (
        "import os, pathlib, sys\n"
        f"{before}"
        "real = os._exit\n"
        f"note = pathlib.Path({str(noted)!r})\n"
        "os._exit = lambda code: (note.write_text(str(code)), real(code))\n"
        "from xcsh.cli import main\n"
        f"sys.argv = ['xcsh', 'ast-grep', '-p', {pattern!r}, '-l', 'python', '--json']\n"
        "sys.exit(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    code = noted.read_text() if noted.exists() else ""
    noted.unlink(missing_ok=True)
    return done.returncode, done.stdout, done.stderr, code


def test_the_xcsh_process_ends_once_its_output_and_notes_are_out(tmp_path: Path) -> None:
    code, out, err, ended = _run_main(_project(tmp_path), pattern="print($$$A)")
    assert (code, ended) == (0, "0")  # ended at once, the last tree never freed
    assert len(out.splitlines()) == 5000
    assert "Skipped 1 file: blob.py (binary)." in err
    code, out, err, ended = _run_main(tmp_path, pattern="nowhere($A)")
    assert (code, out, ended) == (1, "", "")  # nothing kept: an ordinary exit


def test_exit_handlers_registered_before_xcsh_still_run(tmp_path: Path) -> None:
    # A wrapper script, or a tool such as coverage, registered an exit handler first:
    # the process is not xcsh's alone, so it is never ended early.
    marker = tmp_path / "handler-ran"
    before = f"import atexit; atexit.register(pathlib.Path({str(marker)!r}).touch)\n"
    code, out, _, ended = _run_main(_project(tmp_path), pattern="print($$$A)", before=before)
    assert (code, ended) == (0, "")
    assert len(out.splitlines()) == 5000
    assert marker.exists()


def test_a_profiled_run_keeps_its_profile(tmp_path: Path) -> None:
    profile = tmp_path / "prof.out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cProfile",
            "-o",
            str(profile),
            "-m",
            "xcsh",
            "ast-grep",
            "-p",
            "print($$$A)",
            "-l",
            "python",
            "--json",
        ],
        cwd=_project(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 5000
    assert profile.stat().st_size > 0


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


def test_two_searches_writing_into_one_pipe_never_cut_a_line(tmp_path: Path) -> None:
    # Each block fits the pipe's atomic write size, so the lines of two processes sharing
    # a pipe interleave whole (as `xargs -P` or `&` in a script makes them do).
    (tmp_path / "many.py").write_text(
        "".join(f"print({i}, 'a long enough argument to fill the blocks')\n" for i in range(20000))
    )
    command = [sys.executable, "-m", "xcsh", "ast-grep", "-p", "print($$$A)", "--json"]
    read_end, write_end = os.pipe()
    runs = [
        subprocess.Popen(command, cwd=tmp_path, stdout=write_end, stderr=subprocess.DEVNULL)
        for _ in range(2)
    ]
    os.close(write_end)
    chunks = []
    with open(read_end, "rb", buffering=0) as pipe:  # a slow reader: writers block mid-block
        while chunk := pipe.read(4096):
            chunks.append(chunk)
            time.sleep(0.0005)
    lines = b"".join(chunks).splitlines()
    assert [run.wait(timeout=120) for run in runs] == [0, 0]
    assert len(lines) == 40000
    texts = sorted(json.loads(line)["text"] for line in lines)  # every line whole
    assert texts[:2] == ["print(0, 'a long enough argument to fill the blocks')"] * 2
