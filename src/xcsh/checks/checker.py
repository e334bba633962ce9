"""Run the project's check on a staged change and on the unchanged tree (the baseline).

A :class:`Checker` belongs to one workspace (one per session, MCP server or
command). :meth:`Checker.check` stages the files, runs the check there and
compares the run with the baseline; :meth:`Checker.baseline` runs the check
on the unchanged tree (staged too, so nothing it writes reaches the
workspace), cached in ``$XCSH_HOME/checks/`` under a fingerprint of the
workspace's files (the ignore-aware walk's names, sizes and modification
times) and the check's command: the baseline is computed once per workspace
state. Whole outputs go to ``$XCSH_HOME/logs/checks/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import os
import secrets
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import TypeAdapter

from xcsh.checks.compare import CheckRun, verdict
from xcsh.checks.settings import CheckSettings, how_to_set
from xcsh.checks.stage import Staging, staged_tree
from xcsh.core import ToolError
from xcsh.fs import iter_files
from xcsh.pending import CheckVerdict
from xcsh.sandbox import ProcessSupervisor, SupervisorError
from xcsh.sandbox.overlay import OverlaySupport, probe_overlay
from xcsh.sandbox.run import run_to_end

OUTPUT_KEPT = 256 * 1024
"""Bytes of a check's output kept in memory (head and tail); the log keeps it all."""
LOGS_KEPT = 20
"""Check logs kept; older ones are removed when a new one starts."""
STAGING_ENV = "XCSH_CHECK_STAGING"
"""``overlay`` or ``copy`` in the environment forces that way of staging."""


class _Collector:
    """A check's output: the whole to a log, head and tail in memory."""

    def __init__(self, log: Path | None) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0
        self.log_path = log
        self.log = None
        if log is not None:
            with contextlib.suppress(OSError):
                log.parent.mkdir(parents=True, exist_ok=True)
                self.log = log.open("wb")

    def feed(self, chunk: bytes) -> None:
        if self.log is not None:
            try:
                self.log.write(chunk)
            except OSError:
                self.log.close()
                self.log = None
        half = OUTPUT_KEPT // 2
        if len(self.head) < half:
            take = half - len(self.head)
            self.head += chunk[:take]
            chunk = chunk[take:]
        self.tail += chunk
        if len(self.tail) > half:
            self.dropped += len(self.tail) - half
            del self.tail[:-half]

    def text(self) -> str:
        middle = f"\n[... {self.dropped} bytes left out ...]\n".encode() if self.dropped else b""
        return bytes(self.head + middle + self.tail).decode("utf-8", errors="replace")

    def close(self) -> str:
        if self.log is not None:
            self.log.close()
            return str(self.log_path)
        return ""


@dataclass(frozen=True)
class _Baseline:
    """A workspace's cached baseline run, valid while the workspace has ``fingerprint``.

    Stored as ``$XCSH_HOME/checks/baseline-<key>.json``: ``{"fingerprint", "run"}``.
    """

    fingerprint: str
    run: CheckRun


@functools.cache
def _baselines() -> TypeAdapter[_Baseline]:
    """The one adapter between a baseline and its JSON file (built on first use)."""
    return TypeAdapter(_Baseline)


class Checker:
    """The project's check for one workspace.

    Args:
        settings: the check settings (:func:`~xcsh.checks.settings.read_check_settings`).
        workspace: the workspace folder.
        home: ``$XCSH_HOME`` (baseline cache, logs, staged trees).
        network: whether the check may use the network (``sandbox_network``).
        writable: more folders the check may write (``sandbox_write``).
        confine: confine a check on a copied tree with Landlock (the bash
            sandbox is not ``"off"``).
        staging: force ``"overlay"`` or ``"copy"`` (default: ``XCSH_CHECK_STAGING``,
            else an overlay when this machine allows one).
    """

    def __init__(
        self,
        settings: CheckSettings,
        *,
        workspace: Path,
        home: Path,
        network: bool = True,
        writable: Sequence[str] = (),
        confine: bool = True,
        staging: Staging | None = None,
    ) -> None:
        self.settings = settings
        self.workspace = Path(os.path.realpath(workspace))
        self.home = home
        self.network = network
        self.writable = tuple(writable)
        self.confine = confine
        forced = staging or os.environ.get(STAGING_ENV, "")
        self._forced: Staging | None = forced if forced in ("overlay", "copy") else None  # type: ignore[assignment]
        self._overlay: OverlaySupport | None = None
        self._supervisor = ProcessSupervisor()
        self.said_how_to_set = False

    def overlay_support(self) -> OverlaySupport | None:
        """The overlay support (probed on first use); ``None`` when copies are forced."""
        if self._forced == "copy":
            return None
        if self._overlay is None:
            scratch = self.home / "tmp" / f"probe-{secrets.token_hex(4)}"
            support = probe_overlay(scratch)
            if support.available and shutil.which("tar") is None:
                reason = "no tar to lay the staged files down in the overlay"
                support = OverlaySupport(bwrap=support.bwrap, reason=reason)
            self._overlay = support
        return self._overlay

    def fingerprint(self) -> str:
        """The sha256 of what a baseline run depends on (hex).

        Over the check's command and timeout, and each walked file's relative
        path, size and modification time.
        """
        digest = hashlib.sha256()
        digest.update(f"{self.settings.command}\0{self.settings.timeout}\0".encode())
        for path in iter_files(self.workspace):
            with contextlib.suppress(OSError):
                st = path.stat()
                rel = path.relative_to(self.workspace).as_posix()
                digest.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        return digest.hexdigest()

    def _cache_file(self) -> Path:
        key = hashlib.sha256(str(self.workspace).encode()).hexdigest()[:16]
        return self.home / "checks" / f"baseline-{key}.json"

    def _cached(self, fingerprint: str) -> CheckRun | None:
        try:
            cached = _baselines().validate_json(self._cache_file().read_bytes())
        except (OSError, ValueError):  # pydantic's ValidationError is a ValueError
            return None
        return cached.run if cached.fingerprint == fingerprint else None

    def _store(self, fingerprint: str, run: CheckRun) -> None:
        path = self._cache_file()
        payload = _baselines().dump_python(_Baseline(fingerprint, run), mode="json")
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{secrets.token_hex(4)}.tmp")
            tmp.write_text(json.dumps(payload), encoding="utf-8")
            os.replace(tmp, path)

    def _staging_kind(self) -> Staging:
        support = self.overlay_support()
        return "overlay" if support is not None and support.available else "copy"

    async def _run(
        self,
        files: Mapping[str, bytes | None],
        label: str,
        modes: Mapping[str, int] | None = None,
    ) -> CheckRun:
        command = self.settings.command
        logs = self.home / "logs" / "checks"
        _prune_logs(logs)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        collector = _Collector(logs / f"check-{stamp}-{label}-{secrets.token_hex(3)}.log")
        support = self.overlay_support()
        try:
            with staged_tree(
                self.workspace,
                files,
                scratch_parent=self.home / "tmp",
                overlay=support,
                network=self.network,
                writable=self.writable,
                confine=self.confine,
                modes=modes,
            ) as staged:
                env = {
                    **os.environ,
                    "TMPDIR": str(staged.temp),
                    "TMP": str(staged.temp),
                    "TEMP": str(staged.temp),
                    "PAGER": "cat",
                    "GIT_PAGER": "cat",
                    "XCSH_CHECK": "1",
                }
                try:
                    outcome = await run_to_end(
                        self._supervisor,
                        staged.argv(command),
                        cwd=staged.root,
                        env=env,
                        timeout=self.settings.timeout,
                        on_output=collector.feed,
                        confine=staged.confine,
                        stdin=staged.stdin,
                    )
                except SupervisorError as exc:
                    raise ToolError(
                        f"The check `{command}` could not start: {exc.strerror or exc}."
                    ) from exc
        finally:
            log = collector.close()
        return CheckRun(
            exit_code=outcome.exit_code,
            timed_out=outcome.timed_out,
            output=collector.text(),
            seconds=outcome.seconds,
            log=log,
            killed=outcome.killed.killed if outcome.killed is not None else 0,
        )

    async def baseline(self, *, fresh: bool = False) -> CheckRun:
        """The check's run on the unchanged tree (cached by workspace state unless ``fresh``).

        Raises:
            ToolError: no check is set, or it could not start.
        """
        self._require()
        fingerprint = await asyncio.to_thread(self.fingerprint)
        cached = None if fresh else self._cached(fingerprint)
        if cached is not None:
            return cached
        run = await self._run({}, "baseline")
        if not run.timed_out:
            self._store(fingerprint, run)
        return run

    async def check(
        self, files: Mapping[str, bytes | None], *, modes: Mapping[str, int] | None = None
    ) -> CheckVerdict:
        """Stage ``files``, run the check, compare with the baseline.

        ``files`` maps each relative path to its new bytes (``None``: deleted);
        ``modes`` gives some of them new permission bits (else they keep the
        workspace's).

        Raises:
            ToolError: no check is set, a path is not inside the workspace, or the
                check could not start.
        """
        before = await self.baseline()
        after = await self._run(files, "change", modes)
        return verdict(
            self.settings.command, self._staging_kind(), before, after, self.settings.timeout
        )

    async def review(
        self,
        files: Mapping[str, bytes | None],
        *,
        asked: bool,
        modes: Mapping[str, int] | None = None,
    ) -> tuple[CheckVerdict | None, str]:
        """Check ``files`` when the settings or the call (``asked``) want it.

        ``files`` and ``modes`` are as :meth:`check` takes them.

        Returns:
            ``(verdict, "")`` after a run; ``(None, note)`` when a check was
            asked for but none is set (the note says how, once per checker) or
            it could not start (a ``not_run`` verdict then); ``(None, "")``
            when no check is wanted or there are no files.
        """
        if not files or not self.settings.wanted(asked):
            return None, ""
        if not self.settings.configured:
            if not asked or self.said_how_to_set:
                return None, ""
            self.said_how_to_set = True
            return None, self.how_to_set()
        try:
            return await self.check(files, modes=modes), ""
        except ToolError as exc:
            failed = CheckVerdict(status="not_run", command=self.settings.command, reason=str(exc))
            return failed, ""

    def how_to_set(self) -> str:
        """How to set a check, naming this user's and this project's settings files."""
        return how_to_set(self.home, self.workspace)

    def _require(self) -> None:
        if not self.settings.configured:
            raise ToolError(self.how_to_set())

    def close(self) -> None:
        """End every check still running and stop the supervisor's helper process."""
        self._supervisor.close()


def _prune_logs(folder: Path) -> None:
    with contextlib.suppress(OSError):
        logs = sorted(folder.glob("check-*.log"), key=lambda p: p.stat().st_mtime)
        for old in logs[: max(0, len(logs) - LOGS_KEPT + 1)]:
            with contextlib.suppress(OSError):
                old.unlink()


__all__ = ["STAGING_ENV", "Checker"]
