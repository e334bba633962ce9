"""Running ``python -m xcsh`` as a real subprocess with its own ``$XCSH_HOME``.

The child gets a small, fixed environment (``PATH``, ``XCSH_HOME``,
``NO_COLOR=1``) unless a test asks for the whole of the parent's, so what it
prints does not depend on the terminal or settings of whoever runs the suite.
Its standard input is ``/dev/null``: nothing waits for a keyboard.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

XCSH = [sys.executable, "-m", "xcsh"]


def xcsh_env(home: Path, *, inherit: bool = False, **extra: str) -> dict[str, str]:
    """The child's environment: ``PATH`` (or all of ``os.environ`` with ``inherit``),
    ``XCSH_HOME=home`` and ``NO_COLOR=1``, then ``extra``."""
    base = dict(os.environ) if inherit else {"PATH": os.environ.get("PATH", "")}
    return {**base, "XCSH_HOME": str(home), "NO_COLOR": "1", **extra}


NO_OVERRIDE = (
    ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search", "--"]
    if os.geteuid() == 0
    else []
)
"""A command prefix under which permission bits apply: as root, ``setpriv`` drops the
capabilities that let root read and write any file; as anyone else, nothing."""


def run_xcsh(
    args: Sequence[str],
    *,
    cwd: Path,
    home: Path,
    inherit: bool = False,
    input: str | None = None,
    no_override: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run ``xcsh ARGS`` to the end (60 s at most) and capture its text output;
    ``input`` is written to its standard input (else it reads ``/dev/null``);
    ``no_override`` runs it under :data:`NO_OVERRIDE` (file modes apply even to root)."""
    return subprocess.run(
        [*(NO_OVERRIDE if no_override else []), *XCSH, *args],
        cwd=cwd,
        env=xcsh_env(home, inherit=inherit),
        capture_output=True,
        text=True,
        timeout=60,
        input=input,
        stdin=subprocess.DEVNULL if input is None else None,
    )


def run_steps(
    tmp_path: Path,
    home: Path,
    calls: list[dict[str, Any]],
    settings: str,
    *,
    one_per_turn: bool = False,
    no_override: bool = False,
    **env: str,
) -> tuple[int, list[dict[str, Any]], str]:
    """Run ``xcsh -p`` in ``tmp_path/proj`` (created) with the scripted provider making
    ``calls`` (all in one turn, or ``one_per_turn``) under ``settings`` (the text of
    settings.toml) and ``env`` added to :func:`xcsh_env`; ``no_override`` as in
    :func:`run_xcsh`. Returns the exit code, the JSON events and stderr."""
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    (home / "settings.toml").write_text(settings)
    steps = tmp_path / "steps.json"
    turns = [[c] for c in calls] if one_per_turn else [calls]
    steps.write_text(json.dumps([*({"tool_calls": t} for t in turns), {"text": "done"}]))
    argv = ["--provider", "scripted", "--model", str(steps), "--mode", "json", "-p", "go"]
    done = subprocess.run(
        [*(NO_OVERRIDE if no_override else []), *XCSH, *argv],
        cwd=project,
        env=xcsh_env(home, **env),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return done.returncode, events, done.stderr


def tool_results(events: list[dict[str, Any]]) -> list[tuple[bool, str]]:
    """The tool results of :func:`run_steps`' events in call order: (is_error, text)."""
    return [(e["message"]["is_error"], e["text"]) for e in events if e["type"] == "tool_result"]


def find_process(token: str) -> int:
    """The pid (as seen here) of the live process whose command line starts with
    ``token``, waiting up to 5 s for it. A command in the namespace sandbox has
    process ids of its own (``$!`` means nothing outside), so tests find its
    processes by a token given with ``exec -a``."""
    for _ in range(100):
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    cmdline = (entry / "cmdline").read_bytes()
                except OSError:
                    continue
                if cmdline.startswith(token.encode()) and _alive(entry):
                    return int(entry.name)
        time.sleep(0.05)
    raise AssertionError(f"no process {token}")


def _alive(proc: Path) -> bool:
    try:
        stat = (proc / "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def start_xcsh(args: Sequence[str], *, cwd: Path, home: Path) -> subprocess.Popen[str]:
    """Start ``xcsh ARGS`` with its text output on pipes (the caller waits for it)."""
    return subprocess.Popen(
        [*XCSH, *args],
        cwd=cwd,
        env=xcsh_env(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


WAITING_COMMAND = "echo > started.flag; while [ ! -e go.flag ]; do sleep 0.05; done; "
"""The start of a ``bash`` command that waits: it writes ``started.flag``, then waits for
``go.flag`` (ignore ``*.flag`` in the project); what follows runs once released."""


def ast_edit_while_waiting(run: subprocess.Popen[str], project: Path, home: Path) -> str:
    """Apply ``print($A)`` -> ``log($A)`` to ``a.py`` while ``run``'s command waits.

    ``run`` is an ``xcsh -p`` started with :func:`start_xcsh` whose ``bash`` command
    begins with :data:`WAITING_COMMAND`: once it waits, ``xcsh ast-edit --yes`` applies
    in another process, then the command is released. Returns ``run``'s stderr, after
    checking both exited 0 (``run`` is killed if it did not end).
    """
    try:
        while not (project / "started.flag").exists() and run.poll() is None:
            time.sleep(0.05)
        edit = ["ast-edit", "-p", "print($A)", "-r", "log($A)", "-l", "python", "--yes", "a.py"]
        edited = run_xcsh(edit, cwd=project, home=home)
        assert edited.returncode == 0, edited.stderr
        (project / "go.flag").write_text("")
        _out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, err
    return err


# A project custom tool whose preview writes ``stamp.txt`` (``stamped\n``) on apply;
# its source_tool_name is left at the default, so displays badge it with its label.
STAMP_TOOL = """
from xcsh import CustomTool, CustomToolPendingAction

def factory(api):
    def execute(tool_call_id, params):
        def apply(reason):
            (api.cwd / "stamp.txt").write_text("stamped\\n")
        api.push_pending_action(CustomToolPendingAction(label="Write stamp.txt", apply=apply))
        return "Previewed: write stamp.txt."
    return CustomTool(name="stamp", label="Stamp File", description="Writes stamp.txt.",
                      parameters={"type": "object", "properties": {}}, execute=execute)
"""


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    """A tool call of a scripted model's step: ``{"name": ..., "arguments": {...}}``."""
    return {"name": name, "arguments": arguments}


def user_texts(request: dict[str, Any]) -> list[str]:
    """The texts of the user's own messages (not hidden ones) in a scripted model's request."""
    return [
        block["text"]
        for m in request["messages"]
        if m["role"] == "user" and not m.get("hidden")
        for block in m["content"]
        if block.get("type") == "text"
    ]


SIGNAL_AT_WRITE = """
import os
from xcsh.fs import confined

def _signal_at_write(sig, k):
    real = confined._write_all
    count = 0

    def write(fd, data):
        nonlocal count
        count += 1
        if count == k:
            os.kill(os.getpid(), sig)
        real(fd, data)

    confined._write_all = write
"""
"""Source for a ``python -c`` child: ``_signal_at_write(sig, k)`` makes the process send
itself ``sig`` as it starts its ``k``-th file write (a fault at an exact moment)."""

CTRL_C_SCRIPT = (
    SIGNAL_AT_WRITE
    + """
import os
import signal
import sys

import xcsh.cli


def _ctrl_c_after(owner, name, *, when=lambda *a, **k: True):
    real = getattr(owner, name)

    def hooked(*args, **kwargs):
        result = real(*args, **kwargs)
        if when(*args, **kwargs):
            os.kill(os.getpid(), SIGNAL)
        return result

    setattr(owner, name, hooked)


def _hook(moment):
    if moment.startswith("write-"):  # as the k-th file write starts
        _signal_at_write(int(SIGNAL), int(moment.removeprefix("write-")))
    elif moment == "intent":  # just after the journal's intent record: its first entry
        from xcsh.journal.store import Journal

        _ctrl_c_after(Journal, "begin")
    elif moment == "commit":  # just after the journal's outcome record: the commit point
        from xcsh.journal.store import Journal

        _ctrl_c_after(Journal, "finish")
    elif moment == "outcome":  # just after the last line of the outcome
        from xcsh.cli.ast_edit.output import Stdout

        _ctrl_c_after(Stdout, "print", when=lambda self, text, **k: str(text).startswith("Undo"))
    elif moment == "report":  # as the report of the rules without a fix starts
        from xcsh.cli import ast_grep_cmd

        real = ast_grep_cmd.run

        def run(*args, **kwargs):
            os.kill(os.getpid(), SIGNAL)
            return real(*args, **kwargs)

        ast_grep_cmd.run = run


def _command_main(name, **kwargs):  # after main() decided whether the process is its own
    _hook(MOMENT)
    command = real_command_main(name, **kwargs)
    if MOMENT != "returned":
        return command

    def then_ctrl_c(args):  # once the subcommand returned to the dispatcher
        code = command(args)
        os.kill(os.getpid(), SIGNAL)
        return code

    return then_ctrl_c


_name, _, MOMENT = sys.argv[1].rpartition(":")
SIGNAL = getattr(signal, _name or "SIGINT")
real_command_main = xcsh.cli.command_main
xcsh.cli.command_main = _command_main
sys.argv = ["xcsh", *sys.argv[2:]]
sys.exit(xcsh.cli.main())
"""
)
"""Source for a ``python -c`` child that runs ``xcsh ARGS`` (``sys.argv[2:]``) and sends
itself SIGINT (Ctrl-C), or the signal ``sys.argv[1]`` names before a colon
(``SIGTERM:commit``), at the moment ``sys.argv[1]`` names: ``write-K`` as the K-th
file write starts, ``intent`` just after the journal's intent record, ``commit``
just after its outcome record, ``outcome`` after the outcome line ``Undo ...`` of
``xcsh ast-edit``, ``report`` as the report of ``xcsh scan --fix``'s rules without
a fix starts, ``returned`` once the subcommand returned. The hooks are installed
once ``xcsh.cli.main`` has decided whether the process is its own."""
