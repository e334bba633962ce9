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

from xcsh.cli.argparser import Parser


def build_parser() -> argparse.ArgumentParser:
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
    from xcsh.sandbox import (
        NETWORK_ABI,
        kernel_support,
        parse_sandbox_settings,
        plan_sandbox,
    )

    home = xcsh_home()
    source = str(home / "settings.toml")
    try:
        settings = parse_sandbox_settings(load_settings(home), source=source)
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
    print("process trees: a child subreaper supervises each command (all descendants killed)")
    writable = ", ".join(str(p) for p in settings.write) or "(none)"
    print(
        f"settings: sandbox = {settings.mode!r}, sandbox_network = "
        f"{str(settings.network).lower()}, sandbox_write = {writable}"
    )
    scratch = Path(tempfile.mkdtemp(prefix="check-", dir=_ensure(home / "tmp")))
    try:
        plan = plan_sandbox(settings, support, workspace=scratch / "ws", temp_dir=scratch / "tmp")
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
        print("bash: confined; trying it: " + asyncio.run(_try(scratch, plan.confinement)))
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


async def _try(scratch: Path, confinement: object) -> str:
    from xcsh.sandbox import Confinement, ProcessSupervisor

    assert isinstance(confinement, Confinement)
    for name in ("ws", "tmp", "outside"):
        (scratch / name).mkdir()
    supervisor = ProcessSupervisor()
    read_fd, write_fd = os.pipe()
    null = os.open(os.devnull, os.O_RDONLY)
    script = "echo in > inside.txt; echo out > ../outside/outside.txt"
    try:
        proc = await supervisor.start(
            ["sh", "-c", script],
            cwd=scratch / "ws",
            env=dict(os.environ),
            stdin=null,
            stdout=write_fd,
            stderr=write_fd,
            confine=confinement,
        )
        os.close(write_fd)
        await proc.wait()
        proc.close()
    finally:
        os.close(null)
        supervisor.close()
    os.close(read_fd)
    inside = (scratch / "ws" / "inside.txt").exists()
    outside = (scratch / "outside" / "outside.txt").exists()
    if inside and not outside:
        return "a write inside the workspace worked, a write outside was denied"
    return f"unexpected: write inside {'worked' if inside else 'failed'}, outside " + (
        "worked" if outside else "failed"
    )
