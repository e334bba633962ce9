"""The project's check through the installed ``xcsh``, on six's own source and test suite.

Each verdict (passes, newly fails, fails before and after, timed out) as
``xcsh ast-edit --check`` shows it, over an overlay and over a copy; a check
that writes leaves the workspace byte-identical with the same modification
times and nothing outside it; Ctrl-C during a check leaves no process and no
staged tree behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from check_support import CHECK, set_check, snapshot

XCSH = str(Path(sys.executable).with_name("xcsh"))
BREAK = ["-p", '$S.encode("latin-1")', "-r", '$S.encode("utf-8")', "six.py"]
"""A rewrite that breaks exactly one of six's tests: ``test_six.py::test_b``."""
HARMLESS = ["-p", '$S.encode("latin-1")', "-r", '$S.encode("latin1")', "six.py"]
"""A rewrite that keeps every test passing (``latin1`` names the same codec)."""

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="staging needs Linux")


def xcsh(
    *args: str, cwd: Path, staging: str = "", timeout: float = 180, path: str = ""
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    if staging:
        env["XCSH_CHECK_STAGING"] = staging
    if path:
        env["PATH"] = path
    return subprocess.run(
        [XCSH, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_xcsh_check_runs_the_setting_on_the_unchanged_tree(six_project: Path) -> None:
    before = snapshot(six_project)
    done = xcsh("check", cwd=six_project)
    assert done.returncode == 0, done.stderr
    assert f"check: {CHECK}" in done.stdout
    assert "passed" in done.stdout and "198 passed" in done.stdout
    assert snapshot(six_project) == before  # no __pycache__, no .pytest_cache


def test_xcsh_check_without_a_setting_says_how_to_set_it(
    six_project: Path, xcsh_home: Path
) -> None:
    (xcsh_home / "settings.toml").unlink()
    done = xcsh("check", cwd=six_project)
    assert done.returncode == 2
    assert done.stderr == (  # the two files it may go in, by their paths
        f'xcsh: No check is set: set check = "pytest -x -q" (your test command) in '
        f"{xcsh_home / 'settings.toml'} or in the project's "
        f"{six_project.resolve() / '.xcsh' / 'settings.toml'} to run it on previews.\n"
    )


@pytest.mark.parametrize("staging", ["overlay", "copy"])
def test_a_breaking_rewrite_newly_fails_naming_the_test(six_project: Path, staging: str) -> None:
    before = snapshot(six_project)
    done = xcsh("ast-edit", *BREAK, "--check", "--dry-run", cwd=six_project, staging=staging)
    assert done.returncode == 0, done.stderr
    assert f"check newly fails: {CHECK} ({staging}," in done.stdout
    assert "newly failing: test_six.py::test_b\n" in done.stdout
    assert "whole output: " in done.stdout
    assert snapshot(six_project) == before


def _path_without_tar(folder: Path) -> str:
    """A folder of links to every program on ``PATH`` but ``tar``."""
    folder.mkdir()
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or not os.path.isdir(entry):
            continue
        for name in os.listdir(entry):
            target = Path(entry, name)
            link = folder / name
            if name == "tar" or link.exists() or not os.access(target, os.X_OK):
                continue
            link.symlink_to(target)
    return str(folder)


def test_without_tar_a_check_is_staged_by_copy_with_the_same_verdict(
    six_project: Path, tmp_path: Path
) -> None:
    # the overlay lays the staged files down with tar; without one the check runs on a copy
    before = snapshot(six_project)
    path = _path_without_tar(tmp_path / "bin")
    done = xcsh("ast-edit", *BREAK, "--check", "--dry-run", cwd=six_project, path=path)
    assert done.returncode == 0, done.stderr
    assert f"check newly fails: {CHECK} (copy," in done.stdout
    assert "newly failing: test_six.py::test_b\n" in done.stdout
    assert snapshot(six_project) == before


@pytest.mark.parametrize("staging", ["overlay", "copy"])
def test_a_harmless_rewrite_passes(six_project: Path, staging: str) -> None:
    done = xcsh("ast-edit", *HARMLESS, "--check", "--dry-run", cwd=six_project, staging=staging)
    assert done.returncode == 0, done.stderr
    assert f"check passes: {CHECK} ({staging}," in done.stdout
    assert "failed before" not in done.stdout


def test_a_project_that_already_fails_fails_before_and_after(six_project: Path) -> None:
    tests = six_project / "test_six.py"
    tests.write_text(tests.read_text() + "\n\ndef test_known_broken():\n    assert six.PY2\n")
    done = xcsh("ast-edit", *HARMLESS, "--check", "--dry-run", cwd=six_project)
    assert done.returncode == 0, done.stderr
    assert "check fails before and after" in done.stdout
    assert "nothing new fails" in done.stdout
    # and a rewrite that breaks another test still says what newly fails
    broken = xcsh("ast-edit", *BREAK, "--check", "--dry-run", cwd=six_project)
    assert "check newly fails" in broken.stdout
    assert "newly failing: test_six.py::test_b\n" in broken.stdout


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry.name))
    return found


def _hanging_check(marker: str) -> str:
    """A check that starts a grandchild and then hangs (both carry ``marker``)."""
    sleep = f"{sys.executable} -c 'import time; time.sleep(300)'"
    return f"{sleep} {marker}-child & {sleep} {marker}-main"


def _no_staged_tree_left(home: Path) -> bool:
    return not list((home / "tmp").glob("check-*"))


def test_a_hanging_check_is_ended_at_the_timeout_with_its_process_tree(
    six_project: Path, xcsh_home: Path
) -> None:
    marker = f"xcsh-hang-{os.getpid()}"
    set_check(xcsh_home, _hanging_check(marker), check_timeout=2)
    done = xcsh("ast-edit", *HARMLESS, "--check", "--dry-run", cwd=six_project)
    assert done.returncode == 0, done.stderr
    assert "check timed out" in done.stdout and "ended after 2 s" in done.stdout
    assert _processes_with(marker) == []
    assert _no_staged_tree_left(xcsh_home)


@pytest.mark.parametrize("staging", ["overlay", "copy"])
def test_a_check_that_writes_leaves_the_workspace_and_the_rest_untouched(
    six_project: Path, tmp_path: Path, xcsh_home: Path, staging: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    writes = (
        f"{CHECK} -p cacheprovider; echo data > .coverage; mkdir -p build; "
        f"echo x > build/out.txt; echo x > six.py.orig; echo x > {outside}/marker; "
        "rm -f setup.py; exit 0"
    )
    set_check(xcsh_home, writes)
    before = snapshot(six_project)
    done = xcsh("ast-edit", *HARMLESS, "--check", "--dry-run", cwd=six_project, staging=staging)
    assert done.returncode == 0, done.stderr
    assert "check passes" in done.stdout
    assert snapshot(six_project) == before
    assert list(outside.iterdir()) == []
    assert _no_staged_tree_left(xcsh_home)


def test_ctrl_c_during_a_check_leaves_no_process_and_no_staged_tree(
    six_project: Path, xcsh_home: Path
) -> None:
    marker = f"xcsh-sigint-{os.getpid()}"
    set_check(xcsh_home, _hanging_check(marker), check_timeout=120)
    before = snapshot(six_project)
    proc = subprocess.Popen(
        [XCSH, "ast-edit", *HARMLESS, "--check", "--dry-run"],
        cwd=six_project,
        env={**os.environ, "NO_COLOR": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(_processes_with(marker)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(_processes_with(marker)) >= 2, "the check never started"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted during the check" in err and "Traceback" not in err
    deadline = time.monotonic() + 10
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_with(marker) == []
    assert _no_staged_tree_left(xcsh_home)
    with open("/proc/self/mountinfo") as mounts:
        assert str(xcsh_home) not in mounts.read()
    assert snapshot(six_project) == before


def test_apply_requires_checks_refuses_yes_on_a_newly_failing_preview(
    six_project: Path, xcsh_home: Path
) -> None:
    set_check(xcsh_home, CHECK, apply_requires_checks=True)
    original = (six_project / "six.py").read_bytes()
    done = xcsh("ast-edit", *BREAK, "--check", "--yes", cwd=six_project)
    assert done.returncode == 4, done.stderr
    assert "apply_requires_checks = true" in done.stdout
    assert (six_project / "six.py").read_bytes() == original
    # a preview that passes is applied as usual
    applied = xcsh("ast-edit", *HARMLESS, "--check", "--yes", cwd=six_project)
    assert applied.returncode == 0, applied.stderr
    assert b'encode("latin1")' in (six_project / "six.py").read_bytes()


def test_scan_fix_check_shows_the_verdict(six_project: Path) -> None:
    rule = six_project.parent / "rule.yml"
    rule.write_text(
        'id: utf8\nlanguage: python\nrule:\n  pattern: $S.encode("latin-1")\n'
        'fix: $S.encode("utf-8")\n'
    )
    done = xcsh(
        "scan", "--rule", str(rule), "--fix", "--check", "--dry-run", "six.py", cwd=six_project
    )
    assert done.returncode == 0, done.stderr
    assert "newly failing: test_six.py::test_b" in done.stdout


def test_xcsh_check_names_a_bad_setting_and_its_hint_once(
    six_project: Path, xcsh_home: Path
) -> None:
    set_check(xcsh_home, CHECK, check_when="sometimes")
    done = xcsh("check", cwd=six_project)
    assert done.returncode == 2
    assert "check_when must be 'asked' or 'always', not 'sometimes'" in done.stderr
    assert done.stderr.lower().count("hint:") == 1, done.stderr
