"""Commands as previews, with real tools nobody here wrote: ruff, sed, a Python script."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from stdlib_copy import copy_stdlib, stdlib_dir

from helpers import run_steps, run_xcsh, tool_results

SETTINGS = 'sandbox = "auto"\n'
RUFF = str(Path(sys.executable).parent / "ruff")


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file's bytes (``__pycache__`` aside: ``python -m xcsh`` run in a copy of the
    standard library imports, and caches, modules from there)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_ruff_format_previewed_untouched_until_resolve_then_only_some_files(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    shutil.copytree(stdlib_dir() / "json", project, ignore=shutil.ignore_patterns("__pycache__"))
    before = snapshot(project)
    calls = [
        {"name": "bash", "arguments": {"command": f"{RUFF} format .", "preview": True}},
        {
            "name": "resolve",
            "arguments": {"action": "apply", "reason": "ok", "only": ["encoder.py"]},
        },
    ]
    code, events, err = run_steps(tmp_path, xcsh_home, calls, SETTINGS, one_per_turn=True)
    assert code == 0, err
    texts = [t for _, t in tool_results(events)]
    assert "files reformatted" in texts[0] and "Nothing has changed yet" in texts[0]
    assert "encoder.py: changed" in texts[0] and "+++ b/decoder.py" in texts[0]
    after = snapshot(project)
    changed = sorted(k for k in before if after.get(k) != before[k])
    assert changed == ["encoder.py"]  # only the file resolve named
    undone = run_xcsh(["undo"], cwd=project, home=xcsh_home)
    assert undone.returncode == 0 and snapshot(project) == before


def test_a_file_changed_between_preview_and_apply_is_refused_as_stale(
    tmp_path: Path, xcsh_home: Path
) -> None:
    import asyncio

    import pytest

    from xcsh.journal import Journal
    from xcsh.pending import PendingActionStore, StalePreviewError
    from xcsh.sandbox import ProcessSupervisor
    from xcsh.tools.coding._bash_previewing import Previewer

    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.txt").write_text("old\n")
    (project / "b.txt").write_text("old\n")
    supervisor = ProcessSupervisor()
    previewer = Previewer(
        root=project.resolve(),
        home=xcsh_home,
        store=PendingActionStore(),
        journal=Journal.for_root(xcsh_home, project),
        checker=None,
        supervisor=supervisor,
    )

    async def go() -> None:
        _found, action = await previewer.run(
            "sed -i s/old/new/ a.txt b.txt",
            env={"PATH": "/usr/bin:/bin"},
            timeout=60,
            on_output=lambda _c: None,
            check=False,
        )
        assert action is not None and [c.file for c in action.preview.changes] == ["a.txt", "b.txt"]
        assert (project / "a.txt").read_text() == "old\n"  # untouched until resolve
        (project / "a.txt").write_text("edited meanwhile\n")
        with pytest.raises(StalePreviewError):
            await action.effect.apply("ok")

    try:
        asyncio.run(go())
    finally:
        supervisor.close()
    assert (project / "a.txt").read_text() == "edited meanwhile\n"
    assert (project / "b.txt").read_text() == "old\n"  # nothing applied


def test_xcsh_preview_sed_over_the_standard_library_copy_and_a_renaming_script(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "lib"
    copy_stdlib(project)
    before = snapshot(project)
    names = sorted(p.name for p in project.glob("*.py"))[:200]
    shown = run_xcsh(
        ["preview", "--", "sed", "-i", "s/self/this/g", *names], cwd=project, home=xcsh_home
    )
    assert shown.returncode == 0, shown.stderr
    assert "+++ b/abc.py" in shown.stdout and "previewed only, nothing changed" in shown.stderr
    assert snapshot(project) == before  # no terminal, no --yes: nothing applied
    script = "import os\nfor n in ('abc.py', 'ast.py'):\n    os.rename(n, n + '.bak')\n"
    (tmp_path / "rename.py").write_text(script)
    done = run_xcsh(
        ["preview", "--yes", "--", sys.executable, str(tmp_path / "rename.py")],
        cwd=project,
        home=xcsh_home,
    )
    assert done.returncode == 0, done.stderr
    assert (project / "abc.py.bak").read_bytes() == before["abc.py"]
    assert not (project / "abc.py").exists()
    assert run_xcsh(["undo"], cwd=project, home=xcsh_home).returncode == 0
    assert snapshot(project) == before


def test_a_failing_command_is_reported_and_nothing_applied(tmp_path: Path, xcsh_home: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "a.txt").write_text("a\n")
    done = run_xcsh(
        ["preview", "--yes", "--", "sh", "-c", "echo b > b.txt; rm a.txt; exit 3"],
        cwd=project,
        home=xcsh_home,
    )
    assert done.returncode == 1
    assert "the command failed (exit status 3); nothing applied" in done.stderr
    assert sorted(p.name for p in project.iterdir()) == ["a.txt"]


def test_a_preview_rule_previews_sed_in_print_mode_though_the_model_did_not_ask(
    tmp_path: Path, xcsh_home: Path
) -> None:
    """``decision = "preview"`` needs nobody to ask: ``xcsh -p`` starts, and the command is
    previewed (the workspace untouched) until ``resolve`` applies it; a command whose
    program a variable names is previewed too rather than refused, since every rule
    previews."""
    settings = SETTINGS + '\n[[approval.rules]]\nprefix = "sed -i"\ndecision = "preview"\n'
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.txt").write_text("one\ntwo\n")
    (project / "b.txt").write_text("one\n")
    calls = [
        {"name": "bash", "arguments": {"command": "sed -i 's/one/ONE/' a.txt"}},
        {"name": "resolve", "arguments": {"action": "apply", "reason": "ok"}},
        {"name": "bash", "arguments": {"command": "p=sed; $p -i 's/one/1/' b.txt"}},
    ]
    code, events, err = run_steps(tmp_path, xcsh_home, calls, settings, one_per_turn=True)
    texts = [t for _, t in tool_results(events)]
    assert "Nothing has changed yet" in texts[0] and "+ONE" in texts[0], texts[0]
    assert "Applied" in texts[1], texts[1]
    assert (project / "a.txt").read_text() == "ONE\ntwo\n"
    assert "Refused" not in texts[2] and "Nothing has changed yet" in texts[2], texts[2]
    assert (project / "b.txt").read_text() == "one\n"  # previewed, never resolved
    assert code != 0 or "pending" in err  # the run ends with that preview still pending
    undone = run_xcsh(["undo"], cwd=project, home=xcsh_home)
    assert undone.returncode == 0 and (project / "a.txt").read_text() == "one\ntwo\n"


def test_xcsh_preview_json_names_each_change_with_its_diff_and_applies_nothing(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "a.txt").write_text("old\n")
    (project / "gone.txt").write_text("bye\n")
    done = run_xcsh(
        ["preview", "--json", "--", "sh", "-c", "sed -i s/old/new/ a.txt; rm gone.txt; echo x > n"],
        cwd=project,
        home=xcsh_home,
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["exit_code"] == 0 and shown["staging"] in ("overlay", "copy")
    changes = {c["file"]: c for c in shown["changes"]}
    assert sorted(changes) == ["a.txt", "gone.txt", "n"]
    assert [changes[f]["summary"] for f in ("a.txt", "gone.txt", "n")] == [
        "changed",
        "deleted",
        "created",
    ]
    assert "-old\n+new\n" in changes["a.txt"]["diff"]
    assert all(c["id"] for c in shown["changes"])
    assert (project / "a.txt").read_text() == "old\n" and (project / "gone.txt").exists()
    assert not (project / "n").exists()  # no terminal, no --yes: nothing applied


def test_a_mode_change_is_staged_for_the_check(tmp_path: Path, xcsh_home: Path) -> None:
    """``chmod +x`` previewed with ``--check``: the check runs the script, which only the
    staged mode makes executable (on the unchanged tree it cannot run)."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "run.sh").write_text("#!/bin/sh\necho ran\n")
    (project / "run.sh").chmod(0o644)
    (xcsh_home / "settings.toml").write_text(SETTINGS + 'check = "./run.sh"\n')
    done = run_xcsh(
        ["preview", "--json", "--check", "--", "chmod", "+x", "run.sh"],
        cwd=project,
        home=xcsh_home,
        no_override=True,
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert [c["file"] for c in shown["changes"]] == ["run.sh"]
    check = shown["check"]
    assert check["before_passed"] is False, check
    assert check["status"] == "passes" and check["exit_code"] == 0, check
    assert (project / "run.sh").stat().st_mode & 0o111 == 0  # the workspace untouched
