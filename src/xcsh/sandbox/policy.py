"""The sandbox settings, what the kernel supports, and the plan for ``bash``.

Settings (top level of ``$XCSH_HOME/settings.toml``)::

    sandbox = "auto"            # "auto" (default), "require" or "off"
    sandbox_network = false     # default true: commands may use the network
    sandbox_write = ["~/.cache"]  # more paths commands may write (folders or files)

Confinement is Landlock (Linux 5.13+); the ABI the kernel offers decides what
can be denied: writes everywhere but the listed paths (ABI 1; truncation from
ABI 3), TCP bind and connect (ABI 4), abstract Unix sockets (ABI 6).
``XCSH_SANDBOX_ABI`` in the environment caps the ABI xcsh uses (``0``:
behave as on a kernel without Landlock), so users and tests can see what
xcsh does elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
import secrets
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import Field

from xcsh.core import UsageError
from xcsh.core.protected import PROTECTED_NAMES
from xcsh.core.settings_keys import SettingsKeys
from xcsh.core.validation import Problem
from xcsh.sandbox.confinement import Confinement
from xcsh.sandbox.environment import BashEnvTable, EnvPolicy, bash_env_refusal
from xcsh.sandbox.namespace import NamespaceSupport, probe_namespaces, runtime_paths

SandboxMode = Literal["auto", "require", "off"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("auto", "require", "off")
NOT_PROBED = NamespaceSupport(reason="namespaces were not tried")
NETWORK_ABI = 4
"""The first Landlock ABI that can deny TCP bind and connect."""


@dataclass(frozen=True, kw_only=True)
class SandboxSettings:
    """The user's choices for confining ``bash``.

    Args:
        mode: ``"auto"`` confines when the kernel allows and otherwise runs
            unconfined with a notice; ``"require"`` refuses to run commands
            it cannot confine; ``"off"`` never confines.
        network: False denies network access to confined commands.
        write: absolute paths, besides the workspace and the private
            temporary folder, that confined commands may write (a path
            inside the workspace's ``.git`` or ``.xcsh`` makes it writable).
        env: which environment variables commands inherit (``[bash_env]``).
    """

    mode: SandboxMode = "auto"
    network: bool = True
    write: tuple[Path, ...] = ()
    env: EnvPolicy = field(default_factory=EnvPolicy)


@dataclass(frozen=True, kw_only=True)
class KernelSupport:
    """What this kernel offers for confinement.

    Args:
        abi: the Landlock ABI version, 0 when there is none.
        reason: why confinement is impossible (empty when ``abi >= 1``).
        namespaces: whether the namespace sandbox (bubblewrap) works here.
    """

    abi: int
    reason: str = ""
    namespaces: NamespaceSupport = field(default_factory=lambda: NOT_PROBED)

    @property
    def confines(self) -> bool:
        """True when writes can be confined."""
        return self.abi >= 1

    @property
    def network(self) -> bool:
        """True when network access can be denied."""
        return self.abi >= NETWORK_ABI


@dataclass(frozen=True, kw_only=True)
class SandboxPlan:
    """How ``bash`` runs its commands in a session.

    Args:
        confinement: the ruleset for each command, or None to run unconfined.
        refusal: when set, ``bash`` refuses every call with this reason
            (``sandbox = "require"`` without the kernel's support).
        notice: one line for the user at start (running unconfined in
            ``"auto"`` mode, or the network left on because the kernel cannot
            deny it); empty when there is nothing to say.
        temp_dir: the private temporary folder (``TMPDIR`` of confined commands).
        env: which environment variables commands inherit.
    """

    confinement: Confinement | None = None
    refusal: str = ""
    notice: str = ""
    temp_dir: Path | None = None
    env: EnvPolicy = field(default_factory=EnvPolicy)


class SandboxKeys(SettingsKeys):
    """The sandbox keys of a settings file's top level, typed.

    Attributes:
        sandbox: ``"auto"``, ``"require"`` or ``"off"``.
        sandbox_network: whether confined commands may use the network.
        sandbox_write: more paths confined commands may write, as written
            (absolute or starting with ``~``; :func:`parse_sandbox_settings`
            resolves them and checks they exist).
        bash_env: the ``[bash_env]`` table.
    """

    sandbox: SandboxMode = "auto"
    sandbox_network: bool = True
    sandbox_write: list[str] = Field(default_factory=list)
    bash_env: BashEnvTable = Field(default_factory=BashEnvTable)

    @classmethod
    def refusal(
        cls, found: Sequence[Problem], given: Mapping[str, object], source: str
    ) -> UsageError:
        """:meth:`refused`'s words, or :func:`bash_env_refusal`'s for ``[bash_env]``."""
        if found[0].key == "bash_env":
            inside = [p for p in found if p.key == "bash_env"]
            return bash_env_refusal(inside, given.get("bash_env"), source)
        return super().refusal(found, given, source)

    @classmethod
    def refused(cls, key: str, value: object, source: str) -> UsageError | None:
        """The file, the key, what it may be and the value; the fix."""
        match key:
            case "sandbox":
                return UsageError(
                    f"{source}: sandbox must be one of "
                    f"{', '.join(map(repr, SANDBOX_MODES))}, not {value!r}",
                    hint='sandbox = "auto" confines bash when the kernel allows it',
                )
            case "sandbox_network":
                return UsageError(
                    f"{source}: sandbox_network must be true or false, not {value!r}",
                    hint="sandbox_network = true lets bash and the check reach the network",
                )
            case "sandbox_write":
                return UsageError(
                    f"{source}: sandbox_write must be a list of paths, not {value!r}",
                    hint='for example sandbox_write = ["~/.cache"]',
                )
        return None


SETTING_KEYS = tuple(SandboxKeys.model_fields)
"""The settings.toml keys this module reads."""


def parse_sandbox_settings(keys: SandboxKeys, *, source: str) -> SandboxSettings:
    """The sandbox settings ``keys`` give, each ``sandbox_write`` path resolved.

    Args:
        keys: the sandbox keys of the file's top level.
        source: the file's path, for messages.

    Raises:
        UsageError: a ``sandbox_write`` path that is relative or does not
            exist; the message names the path and the fix.
    """
    paths: list[Path] = []
    for text in keys.sandbox_write:
        path = Path(text).expanduser()
        if not path.is_absolute():
            raise UsageError(
                f"{source}: sandbox_write path {text!r} is relative",
                hint="give an absolute path or one starting with ~",
            )
        if not path.exists():
            raise UsageError(
                f"{source}: sandbox_write path {text!r} does not exist",
                hint=f"create it (mkdir -p {path}) or remove it from sandbox_write",
            )
        paths.append(Path(os.path.realpath(path)))
    return SandboxSettings(
        mode=keys.sandbox,
        network=keys.sandbox_network,
        write=tuple(paths),
        env=keys.bash_env.policy(),
    )


def kernel_support(
    env: Mapping[str, str] | None = None, *, namespaces: bool = True
) -> KernelSupport:
    """Ask the kernel which Landlock ABI it offers (``XCSH_SANDBOX_ABI`` caps it).

    With ``namespaces``, also whether the namespace sandbox works (one ``bwrap``
    run; ``XCSH_SANDBOX_NAMESPACES=0`` says no without trying).
    """
    environ = os.environ if env is None else env
    if platform.system() != "Linux":
        return KernelSupport(
            abi=0, reason=f"Landlock is a Linux feature; this is {platform.system()}"
        )
    import landlockpy

    try:
        abi = landlockpy.abi_version()
    except OSError as exc:
        return KernelSupport(abi=0, reason=f"the Landlock probe failed: {exc}")
    reason = "" if abi >= 1 else "this kernel has no Landlock (Linux 5.13+ with landlock in lsm=)"
    cap = environ.get("XCSH_SANDBOX_ABI", "")
    if re.fullmatch(r"\d+", cap) and int(cap) < abi:
        abi = int(cap)
        if abi < 1:
            reason = "XCSH_SANDBOX_ABI=0 in the environment turns Landlock off"
    spaces = (
        probe_namespaces(dict(environ)) if namespaces else NamespaceSupport(reason="not probed")
    )
    return KernelSupport(abi=abi, reason=reason, namespaces=spaces)


LANDLOCK_ONLY_MISSING = (
    "metadata changes outside the workspace (chmod, chown, touch -d, xattrs), "
    "xcsh's own files in /proc, other programs' sockets (tmux, xcsh mcp), "
    "a read-only .git, .hg and .xcsh in the workspace"
)
"""What the Landlock-only fallback does not protect (said in its notice)."""


def plan_sandbox(
    settings: SandboxSettings,
    support: KernelSupport,
    *,
    workspace: Path,
    temp_dir: Path,
    home: Path | None = None,
) -> SandboxPlan:
    """Decide how ``bash`` runs, from the settings and the kernel's support.

    The namespace sandbox is used where it works (Landlock inside it when the
    kernel has Landlock); otherwise Landlock alone, with a notice naming what
    it leaves unprotected; otherwise nothing (``"auto"``) or a refusal
    (``"require"``).

    Args:
        settings: the user's choices.
        support: the kernel's offer (:func:`kernel_support`).
        workspace: the session's folder (writable; its ``.git`` and ``.xcsh``
            stay read-only in the namespace sandbox unless ``sandbox_write``
            names them).
        temp_dir: the private temporary folder (writable; created by the caller).
        home: ``$XCSH_HOME``, hidden from commands in the namespace sandbox.
    """
    env = settings.env
    if settings.mode == "off":
        return SandboxPlan(env=env)
    spaces = support.namespaces
    writable = [str(workspace), str(temp_dir), *(str(p) for p in settings.write)]
    write = tuple(dict.fromkeys(writable))
    if spaces.available:
        confinement = _namespace_confinement(settings, support, workspace, write, home)
        notice = (
            ""
            if support.confines
            else (f"bash runs in namespaces without Landlock inside: {support.reason}")
        )
        return SandboxPlan(confinement=confinement, notice=notice, temp_dir=temp_dir, env=env)
    if not support.confines:
        if settings.mode == "require":
            return SandboxPlan(
                refusal=f'sandbox = "require" in settings.toml, but {support.reason}; '
                "bash commands cannot be confined, so none is run",
                env=env,
            )
        return SandboxPlan(
            notice=f"bash runs unconfined: {support.reason} "
            '(sandbox = "auto"; set sandbox = "require" to refuse instead)',
            env=env,
        )
    return _landlock_only(settings, support, write, temp_dir)


def _namespace_confinement(
    settings: SandboxSettings,
    support: KernelSupport,
    workspace: Path,
    write: tuple[str, ...],
    home: Path | None,
) -> Confinement:
    """The namespace sandbox, with Landlock inside when the kernel has it.

    ``write`` is writable, the workspace's ``.git`` and ``.xcsh`` read-only
    (unless ``sandbox_write`` opens them), ``$XCSH_HOME`` and ``/run/user`` hidden.
    """
    opened = [Path(p) for p in settings.write]
    read_only = tuple(
        str(workspace / name)
        for name in PROTECTED_NAMES
        if not any((workspace / name).is_relative_to(p) for p in opened)
    )
    hidden = tuple(str(p) for p in (home, Path("/run/user")) if p is not None)
    # Python and xcsh's own files, where a hidden folder would hide them
    covered = ("/tmp", *hidden)
    read_only += tuple(
        p
        for p in runtime_paths()
        if any(Path(p).is_relative_to(h) for h in covered)
        and not any(Path(p).is_relative_to(w) for w in write)
    )
    return Confinement(
        write=write,
        network=settings.network,
        read_only=read_only,
        hidden=hidden,
        bwrap=support.namespaces.bwrap,
        abi=support.abi,
    )


def _landlock_only(
    settings: SandboxSettings, support: KernelSupport, write: tuple[str, ...], temp_dir: Path
) -> SandboxPlan:
    """Landlock without namespaces.

    Its notice names what it leaves unprotected, and a network it cannot deny
    is refused (``"require"``) or left on with a notice.
    """
    env = settings.env
    notices = [
        f"bash runs in the Landlock sandbox only ({support.namespaces.reason}); "
        f"not protected: {LANDLOCK_ONLY_MISSING}"
    ]
    network = settings.network
    if not network and not support.network:
        if settings.mode == "require":
            return SandboxPlan(
                refusal=f"sandbox_network = false, but this kernel's Landlock (ABI {support.abi}) "
                f"cannot deny network access (ABI {NETWORK_ABI} needed)",
                env=env,
            )
        notices.append(
            f"bash commands keep network access: this kernel's Landlock (ABI {support.abi}) "
            f"cannot deny it (ABI {NETWORK_ABI} needed)"
        )
        network = True
    elif not network:
        notices[0] += ", UDP and Unix sockets (sandbox_network = false denies TCP only)"
    confinement = Confinement(write=write, network=network)
    return SandboxPlan(
        confinement=confinement, notice="; ".join(notices), temp_dir=temp_dir, env=env
    )


TEMP_MAX_AGE = 24 * 3600.0
"""Seconds after which a left-over private temporary folder is removed."""


def prepare_sandbox(
    settings: SandboxSettings,
    *,
    workspace: Path,
    home: Path,
    support: KernelSupport | None = None,
    env: Mapping[str, str] | None = None,
) -> SandboxPlan:
    """Probe the kernel and plan ``bash``'s sandbox for one session.

    The private temporary folder is ``home/tmp/bash-XXXXXXXX`` (nothing goes to
    the system's temporary folder); folders there older than a day are
    removed. It is created on the first confined command.

    Args:
        settings: the user's choices (:func:`parse_sandbox_settings`).
        workspace: the session's folder.
        home: ``$XCSH_HOME``.
        support: the kernel's offer; probed now when None.
        env: the environment for the probe (``os.environ`` when None).
    """
    if settings.mode == "off":
        return SandboxPlan(env=settings.env)
    if support is None:
        support = kernel_support(env)
    parent = home / "tmp"
    _prune_temp(parent)
    temp_dir = parent / f"bash-{secrets.token_hex(4)}"
    return plan_sandbox(
        settings,
        support,
        workspace=Path(os.path.realpath(workspace)),
        temp_dir=temp_dir,
        home=Path(os.path.realpath(home)),
    )


def _prune_temp(parent: Path) -> None:
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in parent.iterdir():
            with contextlib.suppress(OSError):
                if entry.name.startswith("bash-") and now - entry.stat().st_mtime > TEMP_MAX_AGE:
                    shutil.rmtree(entry, ignore_errors=True)
