"""``xcsh -p`` with the scripted model on the standard-library tree: the scan pool under
the agent's signal handlers, edits applied and stacked, and signals mid-run."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest
from e2e_run import (
    REPEAT,
    REPRODUCTION,
    XCSH_BIN,
    Tree,
    alive,
    children,
    env,
    newest_session,
    print_mode,
    rounds,
    tool_results,
    wait_until,
    write_steps,
)

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")


def grep_call(tree: Tree) -> dict[str, object]:
    return {"name": "ast_grep", "arguments": {"pat": [REPRODUCTION], "path": tree.scope}}


def edit_call(tree: Tree, pat: str, out: str) -> dict[str, object]:
    return {
        "name": "ast_edit",
        "arguments": {"ops": [{"pat": pat, "out": out}], "path": tree.scope},
    }


def resolve(action: str) -> dict[str, object]:
    return {"name": "resolve", "arguments": {"action": action, "reason": f"e2e {action}"}}


@pytest.mark.parametrize("round_", rounds())
def test_ast_grep_through_the_agent_finishes_every_time(
    tree: Tree, tmp_path: Path, xcsh_home: Path, round_: int
) -> None:
    steps = write_steps(tmp_path, "grep", [{"tool_calls": [grep_call(tree)]}, {"text": "done"}])
    for _ in range(REPEAT):
        done = print_mode(steps, tree.root, xcsh_home)
        assert done.returncode == 0, done.stderr
        assert "cancelled" not in done.stderr and "Traceback" not in done.stderr
        assert done.stdout.strip() == "done"
        [(name, is_error, text)] = tool_results(newest_session(xcsh_home))
        assert name == "ast_grep" and not is_error, text
        assert f"{tree.scope}/" in text and "isinstance(" in text


def test_ast_edit_then_resolve_apply_writes_the_preview(
    tree: Tree, tmp_path: Path, xcsh_home: Path
) -> None:
    before = tree.scope_text().count("isinstance(")
    steps = write_steps(
        tmp_path,
        "edit",
        [
            {"tool_calls": [edit_call(tree, "isinstance($A, $B)", "isinstance_e2e($A, $B)")]},
            {"tool_calls": [resolve("apply")]},
            {"text": "applied"},
        ],
    )
    try:
        for _ in range(REPEAT):
            done = print_mode(steps, tree.root, xcsh_home)
            assert done.returncode == 0, done.stderr
            results = tool_results(newest_session(xcsh_home))
            assert [(n, e) for n, e, _ in results] == [("ast_edit", False), ("resolve", False)]
            text = tree.scope_text()
            rewritten = text.count("isinstance_e2e(")
            assert rewritten > 0 and text.count("isinstance(") == before - rewritten
            assert f"{rewritten} replacement" in results[1][2], results[1][2]
            tree.restore()
    finally:
        tree.restore()


def test_two_stacked_previews_resolve_last_first(
    tree: Tree, tmp_path: Path, xcsh_home: Path
) -> None:
    steps = write_steps(
        tmp_path,
        "stack",
        [
            {
                "tool_calls": [
                    edit_call(tree, "isinstance($A, $B)", "isinstance_first($A, $B)"),
                    edit_call(tree, "len($A)", "len_second($A)"),
                ]
            },
            {"tool_calls": [resolve("apply")]},
            {"tool_calls": [resolve("discard")]},
            {"text": "done"},
        ],
    )
    try:
        for _ in range(REPEAT):
            done = print_mode(steps, tree.root, xcsh_home)
            assert done.returncode == 0, done.stderr
            results = tool_results(newest_session(xcsh_home))
            assert [(n, e) for n, e, _ in results] == [
                ("ast_edit", False),
                ("ast_edit", False),
                ("resolve", False),
                ("resolve", False),
            ], results
            text = tree.scope_text()
            # The later preview (len) was on top: applied; the earlier one discarded.
            assert "len_second(" in text and "isinstance_first(" not in text
            tree.restore()
    finally:
        tree.restore()


def scanning(pid: int, home: Path) -> bool:
    """The model's ast_grep call is recorded and the scan's worker processes run."""
    sessions = list((home / "sessions").glob("*.jsonl"))
    if not sessions or not children(pid):
        return False
    return '"name": "ast_grep"' in newest_session(home).read_text(encoding="utf-8")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_a_pooled_scan_ends_the_run_cleanly(
    tree: Tree, tmp_path: Path, xcsh_home: Path, sig: signal.Signals
) -> None:
    # The whole tree: a scan long enough to be interrupted while the pool runs.
    call = {"name": "ast_grep", "arguments": {"pat": [REPRODUCTION]}}
    steps = write_steps(tmp_path, "long", [{"tool_calls": [call]}, {"text": "never"}])
    for _ in range(REPEAT):
        proc = subprocess.Popen(
            [XCSH_BIN, "--provider", "scripted", "--model", str(steps), "-p", "go"],
            cwd=tree.root,
            env=env(xcsh_home),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert wait_until(lambda p=proc: scanning(p.pid, xcsh_home), 60), "no pooled scan"
            workers = children(proc.pid)
            proc.send_signal(sig)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode == 128 + sig, err
        # Ctrl-C is the user's own interrupt; other signals are named.
        said = "xcsh: cancelled\n" if sig == signal.SIGINT else f"xcsh: cancelled ({sig.name})\n"
        assert err.endswith(said) and "Traceback" not in err, err
        assert "never" not in out
        assert not [pid for pid in workers if alive(pid)], "a scan worker outlived xcsh"
        # Every recorded tool call has its result (Ctrl-C may drop the unfinished turn).
        results = tool_results(newest_session(xcsh_home))
        assert len(results) <= 1, results
        for name, is_error, text in results:
            assert name == "ast_grep" and is_error and "Cancelled" in text, text
