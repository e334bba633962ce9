"""ast-grep's own check of a rule: each configuration run once on an empty tree.

So ast-grep's complaints (an unknown kind, an undefined metavariable) come before any
file is read, on one line, with the YAML path of the part refused (``rule``,
``constraints.A``, ``transform.B``, ``utils.w``, ``rewriters[0].rule``). Used by the
check stage (:mod:`xcsh.structural.rules.check`) and for a project's shared utility
rules (:func:`check_utility`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import cast

from ast_grep_py import Config, SgRoot

from xcsh.structural.rules.model import RuleObject
from xcsh.structural.rules.schema import RuleError, yaml_path


def _ast_grep_problem(exc: BaseException) -> str:
    """ast-grep's complaint in one line, without its backtrace."""
    text = str(exc).split("Stack backtrace:")[0]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    causes = [re.sub(r"^\d+:\s*", "", line) for line in lines if line != "Caused by:"]
    causes = [c for c in causes if c != "cannot get matcher"]
    # a cause the next one repeats in full ("Invalid Kind", then "Kind `x` is invalid.")
    # is left out: joined, it read "Invalid Kind Kind `x` is invalid."
    causes = [
        cause
        for cause, after in zip(causes, [*causes[1:], ""], strict=True)
        if not _words(cause) <= _words(after)
    ]
    return " ".join(causes) if causes else type(exc).__name__


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


_STUB = {"regex": "^"}
"""A rule ast-grep accepts, standing for a utility rule while another one is checked."""


def refusal(config: Config, language: str) -> str | None:
    """ast-grep's complaint about ``config`` in one line, or None when it accepts it.

    ``config`` is run once on an empty tree of ``language``.
    """
    try:
        SgRoot("", language).root().find_all(config)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        return _ast_grep_problem(exc).rstrip(".")
    return None


def refused_part(config: Config, language: str, problem: str) -> str:
    """The YAML path (inside its document) of the part of ``config`` ast-grep refuses.

    ``problem`` is ast-grep's complaint about the whole of it. The path is ``utils``
    when ast-grep names them; else ``rule`` when the rule with its utils is refused;
    else the first entry of ``constraints``, then of ``transform``, that is refused
    with the entries before it (``constraints.A``, ``transform.B``); else ``rule``.
    """
    whole: dict[str, object] = dict(config)
    if problem.startswith("`utils`"):
        return _refused_util(_entries(whole.get("utils")), language)
    base: dict[str, object] = {key: whole[key] for key in ("rule", "utils") if key in whole}
    if refusal(cast("Config", base), language) is not None:
        return "rule"
    for key in ("constraints", "transform"):
        entries = _entries(whole.get(key))
        grown: dict[str, object] = {}
        for name, entry in entries.items():
            grown[name] = entry
            if refusal(cast("Config", {**base, key: grown}), language) is not None:
                return yaml_path(key, name)
        if entries:
            base[key] = entries
    return "rule"


def _entries(part: object) -> dict[str, object]:
    """A mapping part of a rule (``utils``, ``constraints``, ``transform``), or ``{}``."""
    return {str(k): v for k, v in part.items()} if isinstance(part, Mapping) else {}


def _refused_util(utils: Mapping[str, object], language: str) -> str:
    """``utils.NAME`` of the first utility rule ast-grep refuses (else ``utils``).

    The rules not checked yet stand for rules it accepts until their turn.
    """
    grown: dict[str, object] = dict.fromkeys(utils, _STUB)
    for name, rule in utils.items():
        grown[name] = rule
        if refusal(cast("Config", {"rule": _STUB, "utils": grown}), language) is not None:
            return yaml_path("utils", name)
    return "utils"


def validate_config(config: Config, language: str, origin: str, where: str) -> None:
    """Let ast-grep-py check the configuration once, on an empty tree.

    ``where`` is the YAML path of the document part ``config`` comes from (``""``
    for the rule itself, ``rewriters[0]`` for a rewriter).

    Raises:
        RuleError: ast-grep refuses it (its own message, on one line), at the YAML
            path of the part refused (:func:`refused_part`).
    """
    problem = refusal(config, language)
    if problem is None:
        return
    part = yaml_path(where, refused_part(config, language, problem))
    raise RuleError(
        origin, part, f"ast-grep refused it: {problem}. Fix the rule as the message says."
    )


def check_utility(rule: RuleObject, names: Iterable[str], language: str, origin: str) -> None:
    """Let ast-grep check one shared utility rule (``utilDirs``), used or not.

    ``ast-grep scan`` checks them all at load. ``names`` are the ids of the utility
    rules of its language; each, and any other id its ``matches`` name, stands for a
    rule ast-grep accepts (a ``matches`` naming no rule is only refused where a rule
    uses it, as by ast-grep).

    Raises:
        RuleError: ast-grep refuses it, naming its file ``origin`` and ``rule``.
    """
    referenced = {*names, *_matched(rule.to_json())}
    config = cast("Config", {"rule": rule.to_json(), "utils": dict.fromkeys(referenced, _STUB)})
    problem = refusal(config, language)
    if problem is not None:
        raise RuleError(
            origin, "rule", f"ast-grep refused it: {problem}. Fix the rule as the message says."
        )


def _matched(value: object) -> Iterator[str]:
    """Every id a ``matches`` names inside the rule JSON ``value``."""
    if isinstance(value, dict):
        for key, sub in value.items():
            if key == "matches" and isinstance(sub, str):
                yield sub
            else:
                yield from _matched(sub)
    elif isinstance(value, list):
        for item in value:
            yield from _matched(item)


__all__ = ["check_utility", "refusal", "refused_part", "validate_config"]
