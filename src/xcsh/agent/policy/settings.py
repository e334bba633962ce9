"""Reading ``[approval]`` of settings.toml into a :class:`~xcsh.agent.policy.tools.ToolPolicy`.

:class:`ApprovalKeys` declares the table's types (each tool's decision, and
``[[approval.rules]]`` tables of a prefix, a decision and example lists);
:func:`parse_tool_policy` builds the policy and checks each rule's examples
against it. The format is described in :mod:`xcsh.agent.policy.tools`.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from xcsh.agent.policy.tools import (
    DECISIONS,
    RULE_DECISIONS,
    Decision,
    PrefixRule,
    ToolDecision,
    ToolPolicy,
    simple_commands,
)
from xcsh.core import UsageError
from xcsh.core.settings_keys import SettingsKeys
from xcsh.core.validation import Problem


def _splits_into_words(prefix: str) -> str:
    shlex.split(prefix)  # a ValueError refuses the prefix (worded by _rule_refusal)
    return prefix


CommandPrefix = Annotated[str, Field(pattern=r"\S"), AfterValidator(_splits_into_words)]
"""A bash command prefix as written: not blank, and splits into words as the shell would."""


class _RuleTable(BaseModel):
    """One ``[[approval.rules]]`` table."""

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")

    prefix: CommandPrefix
    decision: Decision
    match: list[str] = Field(default_factory=list)
    not_match: list[str] = Field(default_factory=list)


class _ApprovalTable(BaseModel):
    """The ``[approval]`` table: each tool's decision, and the bash prefix rules.

    Read from the file's table only, where each tool's decision sits beside
    ``rules``; they are gathered into ``tools`` before validation.
    """

    model_config = ConfigDict(frozen=True, strict=True)

    tools: dict[str, ToolDecision] = Field(default_factory=dict)
    rules: list[_RuleTable] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _gather_tools(cls, table: object) -> object:
        if not isinstance(table, Mapping):
            return table
        gathered: dict[str, object] = {"tools": {k: v for k, v in table.items() if k != "rules"}}
        if "rules" in table:
            gathered["rules"] = table["rules"]
        return gathered


class ApprovalKeys(SettingsKeys):
    """The ``[approval]`` key of a settings file's top level, typed; an empty table when unset.

    Attributes:
        approval: each tool's decision (``"allow"``, ``"ask"`` or ``"deny"``)
            and the ``[[approval.rules]]`` (a prefix that splits into words,
            a decision, ``"preview"`` too, and lists of example commands).
    """

    approval: _ApprovalTable = Field(default_factory=_ApprovalTable)

    @classmethod
    def refusal(
        cls, found: Sequence[Problem], given: Mapping[str, object], source: str
    ) -> UsageError:
        """The message for the first problem in reading order.

        That order is the table itself, then each tool's decision, then
        ``rules``, then each rule in turn (not a table, an unknown key, its
        prefix, its decision), then the rules' examples.
        """
        path = min(found, key=_reading_order).path[1:]
        table = given.get("approval")
        if not path or not isinstance(table, Mapping):
            return UsageError(
                f"{source}: approval must be a table ([approval]), not {table!r}",
                hint='write an [approval] table with a line per tool, for example bash = "ask"',
            )
        rules = table.get("rules")
        match path:
            case ("tools", name, *_):
                return _bad_decision(f"{source}: approval.{name}", table.get(name))
            case ("rules", index, *inside) if isinstance(rules, list):
                where = f"{source}: approval rule {int(index) + 1}"
                return _rule_refusal(tuple(inside), rules[int(index)], where)
        return UsageError(
            f"{source}: approval.rules must be a list of [[approval.rules]] tables",
            hint=_RULE_HINT,
        )


def _reading_order(problem: Problem) -> tuple[int, int, int]:
    """Where ``problem`` comes in reading order (see :meth:`ApprovalKeys.refusal`)."""
    match problem.path[1:]:
        case ():
            return (0, 0, 0)
        case ("tools", *_):
            return (1, 0, 0)
        case ("rules",):
            return (2, 0, 0)
        case ("rules", index):
            return (3, int(index), 0)
        case ("rules", index, "prefix", *_):
            return (3, int(index), 2)
        case ("rules", index, "decision", *_):
            return (3, int(index), 3)
        case ("rules", index, "match", *_):
            return (4, int(index), 0)
        case ("rules", index, "not_match", *_):
            return (4, int(index), 1)
        case ("rules", index, *_):  # an unknown key
            return (3, int(index), 1)
    return (5, 0, 0)


def _rule_refusal(path: tuple[str, ...], raw: object, where: str) -> UsageError:
    """The message for the rule ``raw`` (``where``: its place) refused at ``path`` within it."""
    if not path or not isinstance(raw, Mapping):
        return UsageError(f"{where} must be a table with prefix and decision", hint=_RULE_HINT)
    prefix = raw.get("prefix")
    match path[0]:
        case "prefix":
            if isinstance(prefix, str) and prefix.strip():
                try:
                    shlex.split(prefix)
                except ValueError as exc:
                    return UsageError(
                        f"{where}: prefix {prefix!r} cannot be split into words: {exc}",
                        hint="close the quote, or escape it",
                    )
            return UsageError(
                f'{where}: prefix must be a non-empty command prefix such as "git status"',
                hint=_RULE_HINT,
            )
        case "decision":
            return _bad_decision(f"{where}: decision", raw.get("decision"), RULE_DECISIONS)
        case "match" | "not_match" as key:
            text = shlex.join(shlex.split(str(prefix)))
            return UsageError(
                f"{where} ({text!r}): {key} must be a list of example commands",
                hint=f'for example {key} = ["git status --short"]',
            )
    unknown = sorted(set(raw) - set(_RuleTable.model_fields))
    return UsageError(
        f"{where}: unknown key {unknown[0]!r}",
        hint="a rule has prefix, decision, and optional match and not_match examples",
    )


def parse_tool_policy(keys: ApprovalKeys, *, source: str) -> ToolPolicy:
    """The policy ``[approval]`` sets, its rules' examples checked.

    Raises:
        UsageError: an example that does not parse or contradicts its rule;
            the message names the rule.
    """
    tables = keys.approval.rules
    rules = [PrefixRule(words=tuple(shlex.split(t.prefix)), decision=t.decision) for t in tables]
    for i, (rule, table) in enumerate(zip(rules, tables, strict=True)):
        _check_examples(rule, table, f"{source}: approval rule {i + 1} ({rule.text!r})")
    return ToolPolicy(tools=dict(keys.approval.tools), rules=tuple(rules), source=source)


_RULE_HINT = '[[approval.rules]] takes prefix = "git status" and decision = "allow"'
"""How to write an ``[[approval.rules]]`` table, shown under a malformed one."""


def _bad_decision(where: str, value: object, allowed: Sequence[str] = DECISIONS) -> UsageError:
    words = ", ".join(f'"{d}"' for d in allowed[:-1]) + f' or "{allowed[-1]}"'
    return UsageError(
        f"{where} must be {words}, not {value!r}",
        hint='for example bash = "ask"' if allowed == DECISIONS else 'decision = "preview"',
    )


def _check_examples(rule: PrefixRule, raw: _RuleTable, where: str) -> None:
    for key, examples, expected in (
        ("match", raw.match, True),
        ("not_match", raw.not_match, False),
    ):
        for example in examples:
            try:
                matched = any(rule.matches(part) for part in simple_commands(example))
            except ValueError as exc:
                raise UsageError(
                    f"{where}: example {example!r} cannot be parsed: {exc}",
                    hint="close the quote, or escape it",
                ) from exc
            if matched != expected:
                verb = "does not match" if expected else "matches"
                raise UsageError(
                    f"{where}: the example {example!r} {verb} the rule, but is listed in {key}",
                    hint="fix the prefix or the example",
                )
