"""The environment a ``bash`` command gets: xcsh's own, minus what looks secret.

Setting (``$XCSH_HOME/settings.toml``, never read from the repository)::

    [bash_env]
    inherit = "safe"            # "safe" (default), "all" or "none"
    include = ["GITHUB_TOKEN"]  # names (glob patterns) passed even if they look secret
    exclude = ["AWS_*"]         # more names (glob patterns) withheld

- ``"safe"``: every variable of xcsh's environment except those whose name
  contains ``KEY``, ``SECRET``, ``TOKEN``, ``PASSWORD`` or ``CREDENTIAL``
  (in any case) and the provider variables xcsh reads
  (:data:`PROVIDER_VARIABLES`).
- ``"all"``: every variable (``exclude`` still applies).
- ``"none"``: only :data:`BASIC_VARIABLES` (``PATH``, ``HOME``, locale, ...).

``include`` wins over everything else; ``exclude`` over the inherit mode.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from xcsh.core import UsageError
from xcsh.core.validation import Problem

InheritMode = Literal["safe", "all", "none"]
INHERIT_MODES: tuple[InheritMode, ...] = ("safe", "all", "none")
SECRET_WORDS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "CREDENTIAL")
"""A variable whose name contains one of these (in any case) is withheld by default."""
PROVIDER_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
)
"""The model providers' variables, withheld by default whatever their names."""
BASIC_VARIABLES = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TERM",
    "TZ",
    "PWD",
)
"""What ``inherit = "none"`` keeps (glob patterns)."""
_SECRET = re.compile("|".join(SECRET_WORDS), re.IGNORECASE)


@dataclass(frozen=True, kw_only=True)
class EnvPolicy:
    """Which of xcsh's environment variables a command inherits.

    Args:
        inherit: ``"safe"`` (all but secret-looking names), ``"all"`` or ``"none"``
            (only :data:`BASIC_VARIABLES`).
        include: glob patterns of names always passed.
        exclude: glob patterns of names withheld (unless ``include`` names them).
    """

    inherit: InheritMode = "safe"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommandEnv:
    """A command's environment and the names left out of it (sorted)."""

    env: dict[str, str]
    withheld: tuple[str, ...]


def looks_secret(name: str) -> bool:
    """True for a provider variable or a name containing one of :data:`SECRET_WORDS`."""
    return name in PROVIDER_VARIABLES or _SECRET.search(name) is not None


def command_environment(policy: EnvPolicy, base: Mapping[str, str]) -> CommandEnv:
    """Filter ``base`` (xcsh's environment) as ``policy`` says."""
    env: dict[str, str] = {}
    withheld: list[str] = []
    for name, value in base.items():
        if _matches(name, policy.include) or _keeps(name, policy):
            env[name] = value
        else:
            withheld.append(name)
    return CommandEnv(env=env, withheld=tuple(sorted(withheld)))


def _keeps(name: str, policy: EnvPolicy) -> bool:
    if _matches(name, policy.exclude):
        return False
    if policy.inherit == "all":
        return True
    if policy.inherit == "none":
        return _matches(name, BASIC_VARIABLES)
    return not looks_secret(name)


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def withheld_note(withheld: tuple[str, ...]) -> str:
    """The line a session's first ``bash`` result carries ("" when nothing was withheld)."""
    if not withheld:
        return ""
    return (
        f"[env] Withheld from commands' environment: {', '.join(withheld)} "
        "(names that look secret; [bash_env] in settings.toml changes this)."
    )


VariableName = Annotated[str, Field(min_length=1)]
"""An environment variable's name, or a glob pattern of names (``AWS_*``)."""


class BashEnvTable(BaseModel):
    """The ``[bash_env]`` table of settings.toml (no other keys).

    Attributes:
        inherit: ``"safe"``, ``"all"`` or ``"none"`` (see the module's docstring).
        include: names (glob patterns) passed even if they look secret.
        exclude: more names (glob patterns) withheld.
    """

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")

    inherit: InheritMode = "safe"
    include: list[VariableName] = Field(default_factory=list)
    exclude: list[VariableName] = Field(default_factory=list)

    def policy(self) -> EnvPolicy:
        """The environment policy this table sets."""
        return EnvPolicy(
            inherit=self.inherit, include=tuple(self.include), exclude=tuple(self.exclude)
        )


def bash_env_refusal(found: Sequence[Problem], raw: object, source: str) -> UsageError:
    """The message for ``[bash_env]`` refused.

    Args:
        found: what pydantic refused in it, each place starting with ``bash_env``.
        raw: the table as the file gives it.
        source: the file's path.

    Named first: the table itself, then an unknown key, then ``inherit``,
    ``include`` and ``exclude``.
    """
    hint = '[bash_env] takes inherit = "safe" | "all" | "none", include = [...], exclude = [...]'
    first = next((p for p in found if p.kind == "extra_forbidden"), found[0])
    if len(first.path) < 2 or not isinstance(raw, Mapping):
        return UsageError(f"{source}: bash_env must be a table, not {raw!r}", hint=hint)
    match first.path[1]:
        case "inherit":
            return UsageError(
                f"{source}: bash_env.inherit must be one of "
                f"{', '.join(map(repr, INHERIT_MODES))}, not {raw.get('inherit')!r}",
                hint=hint,
            )
        case "include" | "exclude" as key:
            return UsageError(
                f"{source}: bash_env.{key} must be a list of variable names, not {raw.get(key)!r}",
                hint='for example include = ["GITHUB_TOKEN"] (glob patterns such as "AWS_*" work)',
            )
    unknown = sorted(set(raw) - set(BashEnvTable.model_fields))
    return UsageError(f"{source}: unknown key bash_env.{unknown[0]}", hint=hint)
