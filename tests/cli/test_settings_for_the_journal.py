"""``xcsh undo`` and ``xcsh rewind`` read only the journal's retention from settings.toml.

They do not own the settings file: a file that is not TOML, an unknown key or
another section's bad value leaves them working with the defaults (the commands
that read those sections report them). A bad retention value never stands
between a user and their files either: they say it (key, file, fix) and use its
default, while the commands that own the file refuse it. ``0`` means no limit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_xcsh, tool_call

NOT_THEIRS = ["model = ", 'modle = "x"', 'steering = "hard"']
"""Settings files whose problem ``undo`` and ``rewind`` leave to the commands that own it."""

BAD_RETENTION = [
    ("journal_max_entries = -1", "journal_max_entries", "-1", "a whole number"),
    ('journal_max_bytes = "big"', "journal_max_bytes", "'big'", "a number of bytes"),
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


@pytest.mark.parametrize(("content", "key", "value", "what"), BAD_RETENTION)
def test_undo_works_past_a_bad_retention_and_says_so(
    tmp_path: Path, xcsh_home: Path, content: str, key: str, value: str, what: str
) -> None:
    path = xcsh_home / "settings.toml"
    path.write_text(content + "\n")
    (tmp_path / "a.py").write_text("print(1)\n")
    edit = ["ast-edit", "-p", "print($A)", "-r", "log($A)", "--yes", "a.py"]
    refused = run_xcsh(edit, cwd=tmp_path, home=xcsh_home)  # it owns the settings
    assert refused.returncode == 2 and key in refused.stderr, refused.stderr
    path.write_text("")
    assert run_xcsh(edit, cwd=tmp_path, home=xcsh_home).returncode == 0
    path.write_text(content + "\n")
    undone = run_xcsh(["undo"], cwd=tmp_path, home=xcsh_home)
    assert undone.returncode == 0, undone.stderr
    assert undone.stdout.startswith("Undid 'AST Edit: 1 replacement in 1 file'")
    said, hint = undone.stderr.splitlines()
    assert said.startswith(f"xcsh undo: {key} in {path} must be {what}")
    assert said.endswith(f"0 for no limit), not {value}; the default is used.")
    assert hint.startswith(f"Hint: write for instance {key} = ")
    assert (tmp_path / "a.py").read_text() == "print(1)\n"


def test_zero_means_no_limit_and_sizes_read_as_index_memory_s(
    tmp_path: Path, xcsh_home: Path
) -> None:
    path = xcsh_home / "settings.toml"
    path.write_text('journal_max_entries = 0\njournal_max_bytes = "512 MiB"\n')
    for i in range(5):  # every command reads the file: ast-edit refuses nothing here
        (tmp_path / f"m{i}.py").write_text("print(1)\n")
        edit = ["ast-edit", "-p", "print($A)", "-r", "log($A)", "--yes", f"m{i}.py"]
        done = run_xcsh(edit, cwd=tmp_path, home=xcsh_home)
        assert done.returncode == 0, done.stderr
    listed = run_xcsh(["undo", "--list"], cwd=tmp_path, home=xcsh_home)
    assert (listed.returncode, listed.stderr) == (0, "")
    assert len(listed.stdout.splitlines()) == 5  # nothing pruned
    undone = run_xcsh(["undo"], cwd=tmp_path, home=xcsh_home)
    assert (undone.returncode, undone.stderr) == (0, ""), undone.stderr
    path.write_text("journal_max_entries = 2\n")
    (tmp_path / "m5.py").write_text("print(1)\n")
    edit = ["ast-edit", "-p", "print($A)", "-r", "log($A)", "--yes", "m5.py"]
    assert run_xcsh(edit, cwd=tmp_path, home=xcsh_home).returncode == 0
    listed = run_xcsh(["undo", "--list"], cwd=tmp_path, home=xcsh_home)
    assert len(listed.stdout.splitlines()) == 1  # pruned to 90 % of 2: the newest


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
    for content, key, value, what in [*BAD_RETENTION, ("journal_max_entries = 0", "", "", "")]:
        path.write_text(content + "\n")
        again = run_xcsh(["rewind", "--list"], cwd=project, home=xcsh_home)
        assert (again.returncode, again.stdout) == (0, listed.stdout)
        if not key:  # 0 is no limit: nothing to say
            assert again.stderr == ""
            continue
        said, hint = again.stderr.splitlines()
        assert said.startswith(f"xcsh rewind: {key} in {path} must be {what}")
        assert said.endswith(f"not {value}; the default is used.")
        assert hint.startswith(f"Hint: write for instance {key} = ")
    path.write_text("journal_max_entries = 0\n")
    rewound = run_xcsh(["rewind", "1"], cwd=project, home=xcsh_home)
    assert rewound.returncode == 0, rewound.stderr
    assert not (project / "new.md").exists()
