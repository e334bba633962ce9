"""``xcsh sandbox check``: what this kernel offers for confining ``bash``, tried for real."""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.cli.argparser import Parser

if TYPE_CHECKING:
    from xcsh.sandbox import Confinement


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``xcsh sandbox``."""
    parser = Parser(
        prog="xcsh sandbox",
        description="Show how xcsh confines bash commands on this machine.",
    )
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser(
        "check",
        help="report the kernel's Landlock support and try a confined command",
        description=(
            "Report the kernel's Landlock ABI, what it lets xcsh deny, the sandbox "
            "settings in $XCSH_HOME/settings.toml, and run a confined command that "
            "tries to write inside and outside its workspace. Exit code 1 when "
            'sandbox = "require" cannot be honoured here.'
        ),
    )
    return parser


def main(argv: list[str]) -> int:
    """Entry point of ``xcsh sandbox``; returns the exit code."""
    args = build_parser().parse_args(argv)
    assert args.action == "check"
    from xcsh.app import load_settings
    from xcsh.core import UsageError
    from xcsh.fs import xcsh_home
    from xcsh.sandbox import NETWORK_ABI, kernel_support, plan_sandbox

    home = xcsh_home()
    try:
        settings = load_settings(home).sandbox
    except UsageError as exc:
        print(f"xcsh: {exc}", file=sys.stderr)
        return 2
    support = kernel_support()
    print(f"kernel: {platform.system()} {platform.release()}")
    if support.confines:
        print(f"Landlock: ABI {support.abi}")
        print("  writes outside the allowed paths: denied")
        print(f"  truncating files outside them: {'denied' if support.abi >= 3 else 'allowed'}")
        network = "can be denied" if support.network else f"cannot be denied (ABI {NETWORK_ABI})"
        print(f"  network (TCP bind/connect): {network}")
    else:
        print(f"Landlock: unavailable ({support.reason})")
    spaces = support.namespaces
    if spaces.available:
        print(f"namespaces: available (bwrap: {spaces.bwrap})")
    else:
        print(f"namespaces: unavailable ({spaces.reason})")
    print("process trees: a child subreaper supervises each command (all descendants killed)")
    writable = ", ".join(str(p) for p in settings.write) or "(none)"
    print(
        f"settings: sandbox = {settings.mode!r}, sandbox_network = "
        f"{str(settings.network).lower()}, sandbox_write = {writable}, "
        f"bash_env.inherit = {settings.env.inherit!r}"
    )
    scratch = Path(tempfile.mkdtemp(prefix="check-", dir=_ensure(home / "tmp")))
    try:
        plan = plan_sandbox(
            settings, support, workspace=scratch / "ws", temp_dir=scratch / "tmp", home=home
        )
        if plan.refusal:
            print(f"bash: refused: {plan.refusal}")
            return 1
        if plan.notice:
            print(f"notice: {plan.notice}")
        if plan.confinement is None:
            print(
                "bash: runs unconfined" + (' (sandbox = "off")' if settings.mode == "off" else "")
            )
            return 0
        kind = "namespaces + Landlock" if plan.confinement.bwrap else "Landlock only"
        print(f"bash: confined ({kind}); trying each protection:")
        for name, outcome in asyncio.run(_try(scratch, home, plan.confinement)):
            print(f"  {name}: {outcome}")
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


# Each probe: its name, a shell test that succeeds when the protection held, and
# what to print either way. {ws}, {out}, {home}, {pid}, {port} are filled in.
_PROBES = (
    ("write inside the workspace", "echo in > {ws}/inside.txt", "works", "FAILED"),
    ("write outside the workspace", "! echo out > {out}/outside.txt", "denied", "ALLOWED"),
    ("chmod outside the workspace", "! chmod 0666 {out}/mode.txt", "denied", "ALLOWED"),
    ("the workspace's .git", "! touch {ws}/.git/hooks/pre-commit", "read-only", "WRITABLE"),
    ("xcsh's process in /proc", "! test -r /proc/{pid}/environ", "invisible", "VISIBLE"),
    ("$XCSH_HOME", "! test -e {home}/settings-probe", "invisible", "VISIBLE"),
    ("the system's /tmp", "! test -e {tmp}", "private", "SHARED"),
)


async def _try(scratch: Path, home: Path, confinement: Confinement) -> list[tuple[str, str]]:
    from xcsh.sandbox import ProcessSupervisor

    for name in ("ws", "ws/.git", "ws/.git/hooks", "tmp", "outside"):
        (scratch / name).mkdir()
    (scratch / "outside" / "mode.txt").write_text("")
    (scratch / "outside" / "mode.txt").chmod(0o600)
    probe = home / "settings-probe"
    probe.write_text("")
    shared_fd, shared = tempfile.mkstemp(prefix="xcsh-check-", dir="/tmp")
    os.close(shared_fd)
    fill = {
        "ws": scratch / "ws",
        "out": scratch / "outside",
        "home": home,
        "pid": os.getpid(),
        "tmp": shared,
    }
    script = "; ".join(
        f"if {test.format(**fill)} 2>/dev/null; then echo 1; else echo 0; fi"
        for _n, test, _y, _no in _PROBES
    )
    supervisor = ProcessSupervisor()
    read_fd, write_fd = os.pipe()
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        proc = await supervisor.start(
            ["bash", "-c", script],
            cwd=scratch / "ws",
            env={"PATH": os.environ.get("PATH", os.defpath)},
            stdin=null,
            stdout=write_fd,
            stderr=null,
            confine=confinement,
        )
        os.close(write_fd)
        await proc.wait()
        proc.close()
        with os.fdopen(read_fd, "rb") as out:
            answers = out.read().decode().split()
    finally:
        os.close(null)
        supervisor.close()
        probe.unlink()
        os.unlink(shared)
    held = [a == "1" for a in answers] + [False] * len(_PROBES)
    return [(n, yes if ok else no) for (n, _t, yes, no), ok in zip(_PROBES, held, strict=False)]
