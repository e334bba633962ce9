"""The user's approval policy: which tool calls run, which ask first, which are refused.

Rules live in the user's ``$XCSH_HOME/settings.toml`` only (a repository can
never loosen them)::

    [approval]
    bash = "allow"        # per tool: "allow" (default), "ask" or "deny"
    write = "ask"
    my_custom_tool = "deny"

    [[approval.rules]]    # command-prefix rules for bash
    prefix = "git status"
    decision = "allow"
    match = ["git status --short"]      # examples checked when settings load
    not_match = ["git stash"]

A bash command is parsed with tree-sitter's bash grammar into the simple
commands it runs, looking through wrappers, shells and quoting
(:mod:`xcsh.agent.policy.shell`). For each one, the strictest rule whose
prefix matches its first words decides (deny > ask > allow); a simple command
no rule matches gets the ``bash`` setting. A part whose program cannot be known
without running it is *unresolved*: asked in a terminal, refused where nobody
can be asked (``-p``) — unless every rule is a ``preview`` rule: then the
command is previewed (an unresolved part might be one of those prefixes, and a
preview needs nobody: ``resolve`` decides). The whole command gets the strictest
decision of its parts. The policy is enforced where tools execute (:func:`enforce_policy`),
not in the prompt.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ValidationError

from xcsh.agent.policy.approval import Approval
from xcsh.agent.policy.shell import resolve_commands
from xcsh.core import Tool, ToolError, UsageError
from xcsh.core.wording import did_you_mean
from xcsh.tools.coding.bash import BashParams

ToolDecision = Literal["allow", "ask", "deny"]
"""What ``[approval]`` may say of a whole tool."""
Decision = Literal["allow", "ask", "deny", "preview"]
"""What a command-prefix rule may say: a tool's decisions, or ``preview`` (the command
runs as a preview, ``bash``'s ``preview: true``, whether the model asked or not)."""
DECISIONS: tuple[ToolDecision, ...] = ("allow", "ask", "deny")
RULE_DECISIONS: tuple[Decision, ...] = ("allow", "ask", "deny", "preview")
_RANK = {"allow": 0, "preview": 0, "ask": 1, "deny": 2}


@dataclass(frozen=True, kw_only=True)
class ToolQuestion:
    """What the user is asked before a tool call an ``ask`` rule covers.

    Args:
        tool_name: the tool.
        summary: the call in one line (``bash: rm -rf build``).
        rule: the rule that asks (``rm`` in settings.toml), or for an
            unresolved command what could not be resolved.
        unresolved: the rules cannot tell what the command runs.
    """

    tool_name: str
    summary: str
    rule: str
    unresolved: bool = False

    def prompt(self) -> str:
        """The question, in the same ``[y / n REASON]`` form as ``--approve ask``."""
        if self.unresolved:
            return (
                f"Run {self.summary}? (your approval rules cannot tell what it runs: "
                f"{self.rule}) [y / n REASON] "
            )
        return f"Run {self.summary}? (your rule: {self.rule}) [y / n REASON] "


ToolApprovalHook = Callable[[ToolQuestion], Awaitable[Approval]]
"""``await hook(question)`` before a call that an ``ask`` rule covers."""


@dataclass(frozen=True)
class PrefixRule:
    """A bash command-prefix rule: ``words`` decide ``decision``."""

    words: tuple[str, ...]
    decision: Decision

    @property
    def text(self) -> str:
        """The prefix as written."""
        return shlex.join(self.words)

    def matches(self, simple: Sequence[str]) -> bool:
        """True when the simple command's first words are the prefix.

        The program may be given by path: ``/bin/rm`` matches ``rm``.
        """
        n = len(self.words)
        if len(simple) < n or n == 0:
            return False
        head = [os.path.basename(simple[0]), *simple[1:n]]
        return tuple(head) == self.words


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """The policy's decision for one call, and why (names the rule)."""

    decision: Decision
    why: str
    unresolved: bool = False
    """True when part of the command cannot be resolved statically (asked in a
    terminal, refused where nobody can be asked)."""


@dataclass(frozen=True, kw_only=True)
class ToolPolicy:
    """Per-tool decisions and bash prefix rules (see the module's docstring).

    Args:
        tools: tool name -> decision; tools not named are allowed.
        rules: bash command-prefix rules.
        source: where the rules were read (for messages).
    """

    tools: Mapping[str, ToolDecision]
    rules: tuple[PrefixRule, ...] = ()
    source: str = "settings.toml"

    @property
    def asks(self) -> bool:
        """True when some call may need the user's answer."""
        return "ask" in self.tools.values() or any(r.decision == "ask" for r in self.rules)

    @property
    def empty(self) -> bool:
        """True when every call is allowed."""
        return not self.rules and all(d == "allow" for d in self.tools.values())

    def decide(self, tool_name: str, params: Mapping[str, object]) -> Verdict:
        """The decision for calling ``tool_name`` with ``params``."""
        default = self.tools.get(tool_name, "allow")
        base = Verdict(decision=default, why=f"{tool_name} = {default!r}")
        if tool_name != "bash" or not self.rules:
            return base
        try:
            command = BashParams.model_validate(params).command
        except ValidationError:
            return base
        found = resolve_commands(command)
        if found.error:
            return Verdict(decision="deny", why="a command that cannot be split into words")
        verdicts = [self._decide_simple(part, base) for part in found.commands] or [base]
        if found.unresolved:
            # Strictest first: a deny elsewhere in the command still wins.
            verdicts.append(
                Verdict(
                    decision="preview" if self._only_previews else "ask",
                    why="; ".join(found.unresolved),
                    unresolved=True,
                )
            )
        return max(verdicts, key=lambda v: (_RANK[v.decision], v.unresolved))

    @property
    def _only_previews(self) -> bool:
        """True when every prefix rule previews (none asks, denies or allows)."""
        return bool(self.rules) and all(r.decision == "preview" for r in self.rules)

    def previews(self, command: str) -> bool:
        """True when ``command`` runs as a preview whether the model asked or not.

        That is when a ``preview`` rule matches one of the simple commands it runs, or
        when every rule previews and part of it cannot be resolved statically.
        """
        rules = [r for r in self.rules if r.decision == "preview"]
        if not rules:
            return False
        found = resolve_commands(command)
        if found.unresolved and self._only_previews:
            return True
        return any(r.matches(part) for part in found.commands for r in rules)

    def _decide_simple(self, simple: Sequence[str], base: Verdict) -> Verdict:
        matching = [r for r in self.rules if r.matches(simple) and r.decision != "preview"]
        if not matching:
            return base
        rule = max(matching, key=lambda r: (_RANK[r.decision], len(r.words)))
        return Verdict(decision=rule.decision, why=f"prefix {rule.text!r} = {rule.decision!r}")

    def check_tool_names(self, names: Collection[str]) -> None:
        """Refuse a rule for a tool this session does not have (a typo would never apply).

        Raises:
            UsageError: names the unknown tool and the closest known one.
        """
        for name in self.tools:
            if name not in names:
                raise UsageError(
                    f"{self.source}: [approval] names the tool {name!r}, which this session "
                    f"does not have{did_you_mean(name, names)}",
                    hint="the tools are " + ", ".join(sorted(names)),
                )


def simple_commands(command: str) -> list[list[str]]:
    """The simple commands ``command`` runs, each as its literal words.

    See :func:`~xcsh.agent.shell_commands.resolve_commands`; parts that cannot
    be resolved statically are left out.

    Raises:
        ValueError: the command is not valid bash (unbalanced quotes, ...).
    """
    found = resolve_commands(command)
    if found.error:
        raise ValueError(found.error)
    return found.commands


class _PathArgument(BaseModel):
    """A call's ``path`` argument, the one other tools' questions name."""

    path: str


def _summary(tool_name: str, params: Mapping[str, object]) -> str:
    if tool_name == "bash":
        try:
            command = BashParams.model_validate(params).command
        except ValidationError:
            pass
        else:
            first = command.strip().splitlines()[0] if command.strip() else command
            return f"bash: {first[:200]}"
    try:
        return f"{tool_name}: {_PathArgument.model_validate(params, strict=True).path}"
    except ValidationError:
        return tool_name


def enforce_policy(
    tools: Sequence[Tool], policy: ToolPolicy, ask: ToolApprovalHook | None
) -> list[Tool]:
    """Wrap ``tools`` so each call is checked against ``policy`` before it runs.

    A denied call fails with a :class:`ToolError` naming the rule; an ``ask``
    call asks ``ask`` first (declined: a ``ToolError`` with the user's reason).
    Nothing runs before the decision.

    Raises:
        UsageError: the policy asks but ``ask`` is None (nobody to ask).
    """
    if policy.empty:
        return list(tools)
    if policy.asks and ask is None:
        raise UsageError(
            f"{policy.source}: approval rules ask before some tool calls, and there is no "
            "terminal on stdin to ask on",
            hint="run xcsh from a terminal, or change those rules to allow or deny",
        )
    return [_wrap(tool, policy, ask) for tool in tools]


def _wrap(tool: Tool, policy: ToolPolicy, ask: ToolApprovalHook | None) -> Tool:
    async def check(values: Mapping[str, object]) -> None:
        verdict = policy.decide(tool.name, values)
        if verdict.decision == "deny":
            raise ToolError(
                f"Denied by the user's approval rules ({verdict.why} in {policy.source}); "
                "nothing was run. Do not retry it; find another way or ask the user."
            )
        if verdict.decision == "ask" and verdict.unresolved and ask is None:
            raise ToolError(
                f"Refused by the user's approval rules in {policy.source}: they cannot tell "
                f"what this command runs ({verdict.why}), and "
                "there is no terminal to ask; nothing was run. Name each program literally "
                "(no variables, substitutions or shells fed from input)."
            )
        if verdict.decision == "ask" and ask is not None:
            question = ToolQuestion(
                tool_name=tool.name,
                summary=_summary(tool.name, values),
                rule=verdict.why,
                unresolved=verdict.unresolved,
            )
            answer = await ask(question)
            if not answer.approved:
                why = answer.reason.strip() or "no reason given"
                raise ToolError(f"The user declined this call: {why}. Nothing was run.")

    return tool.guarded(check)
