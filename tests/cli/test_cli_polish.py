"""What a new user of ``xcsh ast-grep``/``ast-edit`` sees: output on a terminal,
footers, hints in the command's own flags, empty scopes and long previews."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import run_on_pty, run_xcsh, run_xcsh_to

from xcsh.cli.ast_edit import command as ast_edit_cmd
from xcsh.structural.tools import edit_action

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _row_before(output: str, needle: str) -> str:
    """What the terminal row holding ``needle`` shows before it (escapes removed)."""
    at = output.index(needle)
    start = max(output.rfind("\n", 0, at), output.rfind("\r", 0, at)) + 1
    return ANSI.sub("", output[start:at])


def test_the_progress_bar_is_cleared_before_the_first_match(tmp_path: Path) -> None:
    for i in range(210):  # enough files for the bar
        (tmp_path / f"m{i:03}.py").write_text(f"def f{i}(x):\n    return isinstance(x, int)\n")
    run = run_on_pty(["ast-grep", "-p", "isinstance($A, $B)", "--limit", "2"], cwd=tmp_path)
    assert run.returncode == 0, run.output
    assert "searching" in run.output  # the bar was drawn...
    assert _row_before(run.output, "m000.py") == ""  # ...and gone before the first match


def test_dry_run_has_no_pending_footer_and_pipes_never_page(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("".join(f"print({i})\n" for i in range(60)))
    paged = tmp_path / "paged.txt"
    for args in (["--dry-run"], []):  # without a terminal nothing is asked either
        done = run_xcsh(
            "ast-edit", "-p", "print($A)", "-r", "log($A)", *args, "a.py",
            cwd=tmp_path, XCSH_PAGER=f"cat > {paged}",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "+log(59)" in done.stdout
        assert "pending: apply or discard" not in done.stdout
        assert not paged.exists()


def test_a_long_preview_is_paged_on_a_terminal_unless_no_pager(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("".join(f"print({i})\n" for i in range(60)))
    paged = tmp_path / "paged.txt"
    command = ["ast-edit", "-p", "print($A)", "-r", "log($A)", "--dry-run", "a.py"]
    run = run_on_pty(command, cwd=tmp_path, XCSH_PAGER=f"cat > {paged}", LINES="20")
    assert run.returncode == 0, run.output
    assert "+log(59)" in ANSI.sub("", paged.read_text())
    assert "log(59)" not in run.output
    paged.unlink()
    run = run_on_pty([*command, "--no-pager"], cwd=tmp_path, XCSH_PAGER=f"cat > {paged}")
    assert "+log(59)" in ANSI.sub("", run.output)
    assert "pending: apply or discard" not in run.output
    assert not paged.exists()


def test_hints_name_the_flags_and_an_unknown_kind_is_named(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("isinstance(x, int)\n")
    kind = run_xcsh("ast-grep", "-p", "isinstance($A, $B)", "--selector", "argument_lst", ".",
                    cwd=tmp_path)  # fmt: skip
    assert kind.returncode == 2
    assert kind.stderr.startswith(
        "xcsh: `argument_lst` is not a python node kind, so --selector cannot pick it. "
        "Did you mean `argument_list`? The node kinds in this pattern are: "
    )
    assert "Add context" not in kind.stderr
    context = run_xcsh("ast-grep", "-p", "a = 1\nb = 2", cwd=tmp_path)
    assert context.returncode == 2
    assert "for example -p `f(key=$V)` with --selector `keyword_argument`." in context.stderr
    assert "pat `" not in context.stderr and "sel `" not in context.stderr


def test_rewrite_flags_point_to_ast_edit_and_limit_counts_replacements(tmp_path: Path) -> None:
    done = run_xcsh("ast-grep", "-p", "f($A)", "-r", "g($A)", cwd=tmp_path)
    assert done.returncode == 2
    assert "xcsh ast-edit -p PATTERN -r REWRITE" in done.stderr
    help_text = ast_edit_cmd.build_parser().format_help()
    assert "stop after N replacements" in " ".join(help_text.split())


def test_a_scope_with_no_file_left_is_exit_2_with_or_without_lang(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("print(1)\n")
    for command, lang in (
        (["ast-grep"], []),
        (["ast-grep"], ["-l", "python"]),
        (["ast-edit", "-r", "log($A)"], ["-l", "python"]),
    ):
        done = run_xcsh(*command, "-p", "print($A)", "--globs", "!*", *lang, cwd=tmp_path)
        assert done.returncode == 2, (command, lang, done.stderr)
        assert done.stderr.startswith("xcsh: No "), done.stderr
        assert "Check PATH and --globs" in done.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_output_to_a_full_disk_or_an_ascii_stream_is_a_message_not_a_traceback(
    tmp_path: Path, xcsh_home: Path
) -> None:
    (tmp_path / "a.py").write_text('print("é")\n', encoding="utf-8")
    original = (tmp_path / "a.py").read_bytes()
    commands = [
        ("ast-grep", "-p", "print($A)"),
        ("ast-edit", "-p", "print($A)", "-r", "log($A)", "--yes"),
        ("ast-edit", "-p", "print($A)", "-r", "log($A)", "--json"),
    ]
    for args in commands:
        with open("/dev/full", "w") as full:
            done = run_xcsh_to(full, *args, cwd=tmp_path)
        assert done.returncode == 74, done.stderr
        assert done.stderr.endswith(
            "xcsh: could not write to standard output: No space left on device.\n"
        )
        ascii_out = run_xcsh_to(subprocess.PIPE, *args, cwd=tmp_path, PYTHONIOENCODING="ascii")
        assert ascii_out.returncode == 74, ascii_out.stderr
        assert "cannot carry a character of the output ('\\xe9')" in ascii_out.stderr
        assert "PYTHONIOENCODING=utf-8" in ascii_out.stderr
        assert "Traceback" not in done.stderr + ascii_out.stderr
    # the preview was never shown: nothing was applied
    assert (tmp_path / "a.py").read_bytes() == original


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("mode", ["text", "json"])
def test_print_mode_output_that_cannot_be_written_is_a_message_not_a_traceback(
    tmp_path: Path, xcsh_home: Path, mode: str
) -> None:
    (tmp_path / "steps.json").write_text('[{"text": "Héllo"}]', encoding="utf-8")
    args = ("--provider", "scripted", "--model", str(tmp_path / "steps.json"), "-p", "hi")
    with open("/dev/full", "w") as full:
        done = run_xcsh_to(full, *args, "--mode", mode, cwd=tmp_path)
    ascii_out = run_xcsh_to(
        subprocess.PIPE, *args, "--mode", mode, cwd=tmp_path, PYTHONIOENCODING="ascii"
    )
    assert (done.returncode, ascii_out.returncode) == (74, 74), done.stderr + ascii_out.stderr
    assert "could not write to standard output: No space left on device." in done.stderr
    assert "cannot carry a character of the output ('\\xe9')" in ascii_out.stderr
    assert "Traceback" not in done.stderr + ascii_out.stderr


def _closed(redirect: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m xcsh ARGS`` started by a shell with ``redirect`` (``>&-``: stdout
    closed; ``2>&-``: stderr closed), the other stream captured."""
    return subprocess.run(
        ["bash", "-c", f'"$@" {redirect}', "-", sys.executable, "-m", "xcsh", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_closed_or_read_only_stdout_is_a_message_and_stderr_never_reaches_stdout(
    tmp_path: Path, xcsh_home: Path
) -> None:
    (tmp_path / "a.py").write_text("print(1)\n", encoding="utf-8")
    original = (tmp_path / "a.py").read_bytes()
    for args in [
        ("ast-grep", "-p", "print($A)"),
        ("ast-edit", "-p", "print($A)", "-r", "log($A)", "--yes"),
        ("tools",),
    ]:
        done = _closed(">&-", *args, cwd=tmp_path)
        assert done.returncode == 74, done.stderr
        assert done.stderr == (
            "xcsh: standard output is closed; send it somewhere "
            "(> FILE, or > /dev/null to drop it).\n"
        )
        read_only = _closed("1</dev/null", *args, cwd=tmp_path)  # open, but not for writing
        assert read_only.returncode == 74, read_only.stderr
        assert read_only.stderr.endswith(
            "xcsh: could not write to standard output: Bad file descriptor.\n"
        )
    assert (tmp_path / "a.py").read_bytes() == original  # nothing applied unseen
    # a bad language with stderr closed: the message is dropped, stdout stays clean
    bad = _closed("2>&-", "ast-grep", "-p", "print($A)", "-l", "klingon", "--json", cwd=tmp_path)
    assert (bad.returncode, bad.stdout) == (2, "")
    found = _closed("2>&-", "ast-grep", "-p", "print($A)", "--json", cwd=tmp_path)
    assert found.returncode == 0
    assert json.loads(found.stdout)["text"] == "print(1)"


def test_ctrl_c_while_the_pending_action_is_built_exits_130_with_nothing_changed(
    tmp_path: Path,
    xcsh_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # On a 100,000-replacement file this step takes seconds; Ctrl-C there gave a traceback.
    (tmp_path / "a.py").write_text("print(1)\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    # the command imports it when an edit is to be built (a --json preview never does)
    monkeypatch.setattr(edit_action, "push_edit_preview", interrupted)
    code = ast_edit_cmd.main(["-p", "print($A)", "-r", "log($A)", "--yes"])
    assert code == 130
    assert capsys.readouterr().err.endswith("xcsh: interrupted: nothing changed.\n")
    assert (tmp_path / "a.py").read_text(encoding="utf-8") == "print(1)\n"
