"""``xcsh undo`` and ``xcsh rewind`` read only the journal's retention from settings.toml.

They do not own the settings file: a file that is not TOML, an unknown key or
another section's bad value leaves them working with the defaults (the commands
that read those sections report them), while a bad retention value is refused
with its key, the file and the fix, as ``xcsh`` itself refuses it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_xcsh, tool_call

NOT_THEIRS = ["model = ", 'modle = "x"', 'steering = "hard"']
"""Settings files whose problem ``undo`` and ``rewind`` leave to the commands that own it."""

BAD_RETENTION = [
    ("journal_max_entries = 0", "journal_max_entries", "0"),
    ('journal_max_bytes = "big"', "journal_max_bytes", "'big'"),
]


@pytest.mark.parametrize("content", NOT_THEIRS)
def test_undo_works_on_with_a_settings_file_it_does_not_own(
    tmp_path: Path, xcsh_home: Path, content: str
) -> None:
    (xcsh_home / "settings.toml").write_text(content + "\n")
    listed = run_xcsh(["undo", "--list"], cwd=tmp_path, home=xcsh_home)
    assert (listed.returncode, listed.stderr) == (0, "")
    assert listed.stdout == f"No changes are recorded for {tmp_path.resolve()}.\n"


def test_a_settings_file_that_is_not_utf8_is_named_in_one_line_and_undo_works_past_it(
    tmp_path: Path, xcsh_home: Path
) -> None:
    # A Latin-1 byte in a value once ended every command with a UnicodeDecodeError traceback.
    path = xcsh_home / "settings.toml"
    path.write_bytes(b'provider = "openai"\nmodel = "caf\xe9"\n')
    listed = run_xcsh(["undo", "--list"], cwd=tmp_path, home=xcsh_home)
    assert (listed.returncode, listed.stderr) == (0, "")
    refused = run_xcsh(["sandbox", "check"], cwd=tmp_path, home=xcsh_home)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr.splitlines() == [
        f"xcsh: {path} is not valid UTF-8 (byte 0xe9 at line 2, column 13)",
        "Hint: save the file as UTF-8 (TOML files are UTF-8) or move it aside",
    ]
    path.write_bytes(b'\xef\xbb\xbfmodle = "x"\n')  # a byte-order mark is read past
    refused = run_xcsh(["sandbox", "check"], cwd=tmp_path, home=xcsh_home)
    assert refused.returncode == 2 and "modle" in refused.stderr, refused.stderr


@pytest.mark.parametrize(("content", "key", "value"), BAD_RETENTION)
def test_undo_refuses_a_bad_retention(
    tmp_path: Path, xcsh_home: Path, content: str, key: str, value: str
) -> None:
    path = xcsh_home / "settings.toml"
    path.write_text(content + "\n")
    refused = run_xcsh(["undo", "--list"], cwd=tmp_path, home=xcsh_home)
    assert (refused.returncode, refused.stdout) == (2, "")
    said, hint = refused.stderr.splitlines()
    assert said == f"xcsh undo: {key} in {path} must be a whole number of at least 1, not {value}"
    assert hint.startswith(f"Hint: write for instance {key} = ")


def test_rewind_reads_the_retention_alone(tmp_path: Path, xcsh_home: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    script = tmp_path / "turn.json"
    steps = [{"tool_calls": [tool_call("write", path="new.md", content="hi\n")]}, {"text": "ok"}]
    script.write_text(json.dumps(steps))
    run = run_xcsh(
        ["--provider", "scripted", "--model", str(script), "-p", "add new.md"],
        cwd=project,
        home=xcsh_home,
    )
    assert run.returncode == 0, run.stderr
    listed = run_xcsh(["rewind", "--list"], cwd=project, home=xcsh_home)
    assert listed.returncode == 0, listed.stderr
    path = xcsh_home / "settings.toml"
    for content in NOT_THEIRS:
        path.write_text(content + "\n")
        again = run_xcsh(["rewind", "--list"], cwd=project, home=xcsh_home)
        assert (again.returncode, again.stdout, again.stderr) == (0, listed.stdout, listed.stderr)
    for content, key, value in BAD_RETENTION:
        path.write_text(content + "\n")
        refused = run_xcsh(["rewind", "--list"], cwd=project, home=xcsh_home)
        assert (refused.returncode, refused.stdout) == (2, "")
        said, hint = refused.stderr.splitlines()
        assert said == (
            f"xcsh rewind: {key} in {path} must be a whole number of at least 1, not {value}"
        )
        assert hint.startswith(f"Hint: write for instance {key} = ")
