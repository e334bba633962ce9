"""``xcsh rewind`` on the standard-library tree: a pooled rewrite of a whole package
and a bash command's file taken back byte for byte, and the whole tree walked for changes
the journal never saw."""

from __future__ import annotations

import subprocess
from pathlib import Path

from e2e_run import XCSH_BIN, Tree, env, print_mode, write_steps


def files(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mode & 0o7777)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_rewind_takes_a_package_wide_apply_and_bash_back_and_names_what_others_wrote(
    tree: Tree, tmp_path: Path, xcsh_home: Path
) -> None:
    scope = tree.root / tree.scope
    before = files(scope)
    look = write_steps(tmp_path, "look", [{"text": "looked"}])
    edit = write_steps(
        tmp_path,
        "edit",
        [
            {
                "tool_calls": [
                    {
                        "name": "ast_edit",
                        "arguments": {
                            "ops": [{"pat": "isinstance($A, $B)", "out": "isinstance_e2e($A, $B)"}],
                            "path": tree.scope,
                        },
                    },
                    {
                        "name": "bash",
                        "arguments": {"command": f"echo made > {tree.scope}/made.txt"},
                    },
                ]
            },
            {
                "tool_calls": [
                    {"name": "resolve", "arguments": {"action": "apply", "reason": "e2e"}}
                ]
            },
            {"text": "applied"},
        ],
    )
    try:
        first = print_mode(look, tree.root, xcsh_home)
        assert first.returncode == 0, first.stderr
        second = print_mode(edit, tree.root, xcsh_home, "--continue")
        assert second.returncode == 0, second.stderr
        changed = [name for name, item in files(scope).items() if before.get(name) != item]
        assert len(changed) > 10 and "isinstance_e2e(" in tree.scope_text()
        (scope / "by_hand.txt").write_text("typed\n")  # another program, after the session

        run = subprocess.run(
            [XCSH_BIN, "rewind", "2"],
            cwd=tree.root,
            env=env(xcsh_home),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        assert "Rewound to before message 2 (files and conversation)." in run.stdout
        assert f"{tree.scope}/made.txt" in run.stdout.split("Files put back")[1]  # bash's too
        assert (
            "outside the undo journal (bash commands or other programs): "
            f"{tree.scope}/by_hand.txt." in run.stdout
        )
        after = files(scope)
        assert after.pop("by_hand.txt")[0] == b"typed\n"
        assert after == before  # made.txt, which bash wrote, gone again
    finally:
        (scope / "made.txt").unlink(missing_ok=True)
        (scope / "by_hand.txt").unlink(missing_ok=True)
        tree.restore()
