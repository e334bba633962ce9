"""The ``xcsh`` command: a thin dispatcher over one module per subcommand.

``xcsh SUBCOMMAND ...`` imports only that subcommand's module, so
``xcsh ast-grep`` never imports a model SDK and ``xcsh --help`` stays quick.
Each module exposes ``main(argv: list[str]) -> int``; :func:`command_main`
imports it with a plain function-level import, so the layer check sees every
edge.

Standard output closed early (``xcsh tools --json | head -3``) ends every
subcommand the way Unix tools killed by SIGPIPE end: quietly, with exit code
:data:`EXIT_BROKEN_PIPE` (141, 128 + SIGPIPE), so ``set -o pipefail`` scripts
still see that the output was cut short. This follows the recipe in the
Python documentation (``signal`` module, "Note on SIGPIPE").
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import gc
import io
import os
import signal
import sys
from collections.abc import Callable

from xcsh.cli.stdout import is_own_process

Command = Callable[[list[str]], int]
"""A subcommand's ``main(argv) -> exit code``."""

# subcommand -> one-line help
SUBCOMMANDS: dict[str, str] = {
    "ast-grep": "structural search (ast-grep patterns)",
    "ast-edit": "structural rewrite with preview, then apply or discard",
    "scan": "run a project's YAML rules (sgconfig.yml), fixes previewed",
    "tools": "list the tools available here and any load errors",
    "trust": "trust a project folder's custom tools",
    "mcp": "serve xcsh's preview/apply tools over MCP",
    "mcp-servers": "start the MCP servers the settings name and list each with its tools",
    "undo": "undo the last change xcsh applied in this folder (or entry N)",
    "rewind": "take a session's files and conversation back to before message N",
    "recover": "settle applies a crash interrupted (roll back or complete)",
    "sandbox": "show how bash commands are confined here (check)",
    "check": "run the project's check (the `check` setting) on the unchanged tree",
    "preview": "show what a command would change (staged), then apply it through the journal",
}


def command_main(name: str | None, *, owns_process: bool = False) -> Command:
    """The ``main`` of subcommand ``name``, or of the agent itself for ``None``.

    Only that subcommand's module is imported (now), so start-up pays for
    nothing else. With ``owns_process`` (the ``xcsh`` command, not a caller's
    interpreter), ``ast-grep``, ``ast-edit``, ``scan``, ``undo`` and ``rewind`` may end the
    process themselves once their output is flushed (:func:`xcsh.cli.stdout.end_process`).

    Raises:
        KeyError: ``name`` is not one of :data:`SUBCOMMANDS`.
    """
    match name:
        case None:
            from xcsh.cli.agent_cmd import main as agent

            return agent
        case "ast-grep":
            from xcsh.cli.ast_grep_cmd import main as ast_grep

            return functools.partial(ast_grep, owns_process=owns_process)
        case "ast-edit":
            from xcsh.cli.ast_edit.command import main as ast_edit

            return functools.partial(ast_edit, owns_process=owns_process)
        case "scan":
            from xcsh.cli.scan_cmd import main as scan

            return functools.partial(scan, owns_process=owns_process)
        case "tools":
            from xcsh.cli.tools_cmd import main as tools

            return tools
        case "trust":
            from xcsh.cli.trust_cmd import main as trust

            return trust
        case "mcp":
            from xcsh.cli.mcp_cmd import main as mcp

            return mcp
        case "mcp-servers":
            from xcsh.cli.mcp_servers_cmd import main as mcp_servers

            return mcp_servers
        case "undo":
            from xcsh.cli.undo_cmd import main as undo

            return functools.partial(undo, owns_process=owns_process)
        case "rewind":
            from xcsh.cli.rewind_cmd import main as rewind

            return functools.partial(rewind, owns_process=owns_process)
        case "recover":
            from xcsh.cli.recover_cmd import main as recover

            return recover
        case "sandbox":
            from xcsh.cli.sandbox_cmd import main as sandbox

            return sandbox
        case "check":
            from xcsh.cli.check_cmd import main as check

            return check
        case "preview":
            from xcsh.cli.preview_cmd import main as preview

            return preview
    raise KeyError(name)


EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE
"""Exit code when standard output was closed before xcsh finished writing (141)."""


GC_THRESHOLDS = (200_000, 30, 30)
"""The garbage collector's thresholds in an xcsh process (the values mypy uses). Under
Python's defaults (700, 10, 10) a preview of 100,000 replacements in one file spent
14 s of its 26 s in collections that freed nothing: a large result keeps every object
it is made of alive, and each full collection walks them all again.

Only commands that do one job and end raise them (see :data:`SESSION_COMMANDS`)."""

SESSION_COMMANDS: frozenset[str | None] = frozenset({None, "mcp"})
"""Commands that serve a session for as long as it lasts: the agent (``None``: the
terminal and ``-p``) and ``xcsh mcp``. They keep Python's own collector thresholds:
under :data:`GC_THRESHOLDS` the reference cycles each MCP session leaves behind reach
the oldest generation and wait there for a full collection that hardly ever comes
(46 KiB more resident memory per session opened and closed, measured over 600)."""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``xcsh`` console script; returns the exit code.

    Sets the process's garbage-collector thresholds to :data:`GC_THRESHOLDS` first,
    except for the :data:`SESSION_COMMANDS`.
    ``argv`` ``None`` (the console script, ``python -m xcsh``) reads ``sys.argv``
    and means the process is xcsh's own, unless a profiler, tracer or exit
    handler was there first (:func:`xcsh.cli.stdout.is_own_process`): a search
    may then end it as soon as its output is flushed
    (:func:`xcsh.cli.stdout.end_process`). A caller passing ``argv`` always
    gets the exit code back.

    Started with standard error closed (``2>&-``), messages are dropped rather
    than mixed into standard output; started with standard output closed
    (``>&-``), nothing runs: a one-line message and :data:`EXIT_OUTPUT_FAILED`.

    Returns:
        The subcommand's exit code, or :data:`EXIT_BROKEN_PIPE` when the
        reader of standard output went away before xcsh finished writing
        (nothing more is printed, no traceback), or :data:`EXIT_OUTPUT_FAILED`
        with a one-line message on stderr when standard output cannot be
        written (:func:`is_output_error`). ``--help`` is the exception:
        argparse writes the help in one call and ignores its failure, so it
        exits 0 as always.
    """
    if sys.stderr is None:  # started with stderr closed (2>&-): messages are dropped,
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - never on stdout
    if sys.stdout is None:  # started with stdout closed (>&-)
        print(
            "xcsh: standard output is closed; send it somewhere "
            "(> FILE, or > /dev/null to drop it).",
            file=sys.stderr,
        )
        return EXIT_OUTPUT_FAILED
    args = list(sys.argv[1:] if argv is None else argv)
    name: str | None = None
    if args and args[0] in SUBCOMMANDS:
        name, args = args[0], args[1:]
    if name not in SESSION_COMMANDS:
        gc.set_threshold(*GC_THRESHOLDS)
    stdout_was = _stdout_identity()
    try:
        try:
            code = command_main(name, owns_process=argv is None and is_own_process())(args)
        finally:
            # Flush here, inside the handler, rather than at interpreter exit,
            # where a broken pipe can only be reported as "Exception ignored".
            _flush_stdout()
    except BrokenPipeError:
        stdout_to_devnull()
        return EXIT_BROKEN_PIPE
    except (UnicodeEncodeError, OSError) as exc:
        if not is_output_error(exc):
            raise
        return _output_failed(exc)
    except SystemExit:
        # rich's Console handles a broken pipe itself: it points stdout at
        # /dev/null and exits with 1. Report it like every other broken pipe.
        if stdout_was != _devnull_identity() and _stdout_identity() == _devnull_identity():
            return EXIT_BROKEN_PIPE
        raise
    return code


EXIT_OUTPUT_FAILED = 74
"""Exit code when standard output could not be written (full disk, an encoding that
cannot carry the text): ``EX_IOERR`` of BSD's sysexits."""

_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def is_output_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a failure to write the output stream rather than a named file.

    That is a :class:`UnicodeEncodeError`, or an :class:`OSError` without a file name
    saying the device is full, over quota or failing (``ENOSPC``, ``EDQUOT``, ``EFBIG``,
    ``EIO``), or ``EBADF`` while standard output is open for reading only (``1</dev/null``).
    """
    if isinstance(exc, UnicodeEncodeError):
        return True
    if not isinstance(exc, OSError) or exc.filename is not None:
        return False
    if exc.errno == errno.EBADF:
        return not _stdout_writable()
    return exc.errno in _OUTPUT_ERRNOS


def _stdout_writable() -> bool:
    try:
        mode = fcntl.fcntl(1, fcntl.F_GETFL) & os.O_ACCMODE
    except OSError:
        return False
    return mode in (os.O_WRONLY, os.O_RDWR)


def _output_failed(exc: BaseException) -> int:
    """Say on stderr why the output stopped (no traceback); :data:`EXIT_OUTPUT_FAILED`."""
    if isinstance(exc, UnicodeEncodeError):
        why = (
            f"standard output's encoding ({exc.encoding}) cannot carry a character of the "
            f"output ({exc.object[exc.start : exc.end]!a}); run it with PYTHONIOENCODING=utf-8 "
            "or a UTF-8 locale (LANG=C.UTF-8)"
        )
    else:
        why = f"could not write to standard output: {getattr(exc, 'strerror', None) or exc}"
    stdout_to_devnull()  # what is still buffered must not fail again at exit
    with contextlib.suppress(OSError, ValueError):
        print(f"xcsh: {why}.", file=sys.stderr)
    return EXIT_OUTPUT_FAILED


def _stdout_identity() -> tuple[int, int] | None:
    with contextlib.suppress(OSError):
        info = os.fstat(1)
        return info.st_dev, info.st_ino
    return None


def _devnull_identity() -> tuple[int, int]:
    info = os.stat(os.devnull)
    return info.st_dev, info.st_ino


def _flush_stdout() -> None:
    stream = sys.stdout
    if stream is not None and not stream.closed:
        stream.flush()


def stdout_to_devnull() -> None:
    """Point file descriptor 1 at /dev/null so the final flush at exit cannot fail again.

    For a subcommand that notices the broken pipe itself (an event listener
    that must not raise) and ends by raising :class:`BrokenPipeError` later.
    """
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def subcommand_help() -> str:
    """The subcommand list for the agent command's ``--help``."""
    width = max(len(name) for name in SUBCOMMANDS)
    lines = [f"  {name.ljust(width)}  {text}" for name, text in SUBCOMMANDS.items()]
    return "subcommands:\n" + "\n".join(lines)
