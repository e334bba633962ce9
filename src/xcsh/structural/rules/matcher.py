"""What a YAML rule matches: :class:`RuleMatcher`, the rule's :class:`Matcher`.

ast-grep-py runs the rule's configuration (``rule``, ``constraints``, ``utils`` and
the transforms it evaluates); before that, a file must hold the text the rule needs
(:mod:`xcsh.structural.rules.tokens`) and its name must pass the rule's
``files``/``ignores``. What the rule adds to a match (fix, transforms, report) is
:class:`~xcsh.structural.rules.extras.RuleExtras`, beside it.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ast_grep_py import Config, SgNode

from xcsh.structural.base.matcher import Matcher, Requirement, admits

if TYPE_CHECKING:
    from ast_grep_py import Rule


@dataclass(frozen=True, kw_only=True)
class RuleMatcher(Matcher):
    """What a checked YAML rule matches, ready to run on files (picklable for worker processes).

    Attributes:
        source: where the rule came from (``rules/no-await.yml``), for messages.
        language: the ast-grep-py language id.
        config: the ``find_all`` configuration (``rule``, ``constraints``, ``utils``,
            and the transforms ast-grep-py evaluates).
        single: metavariable names of the rule's patterns (reported when bound).
        multi: ``$$$`` names of the rule's patterns.
        required: the text a file must hold for the rule to match in it
            (:mod:`xcsh.structural.rules.tokens`); ``()`` when nothing is known.
        files: globs a file must match (relative to :attr:`base`), or empty for all.
        ignores: globs of files left out.
    """

    source: str
    language: str
    config: Config
    single: tuple[str, ...] = ()
    multi: tuple[str, ...] = ()
    required: Requirement = ()
    files: tuple[str, ...] = ()
    ignores: tuple[str, ...] = ()
    base: str = ""
    """The real path of the folder ``files``/``ignores`` are relative to: the project's
    (the folder of ``sgconfig.yml``), or a ``--rule`` file's own; ``""`` for the workspace."""
    branches: tuple[tuple[Rule, tuple[str, ...]], ...] = ()
    """The branches of the rule's ``any`` (top level, or in a top-level ``all``) with the
    ``$$$`` names each binds, when a name is bound on some branches only: such a name
    captured nothing is bound only if the first branch that matches binds it."""

    def multi_bound(self, node: SgNode, name: str) -> bool:
        """Whether ``$$$name``, which captured nothing in the match ``node``, is bound.

        Bound, it is reported as ``[]``; an ``any`` branch that did not match leaves it
        unbound instead, as the CLI tells them apart.
        """
        if not any(name in names for _, names in self.branches):
            return True
        for branch, names in self.branches:
            try:
                if node.matches(**branch):
                    return name in names
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException:  # a branch ast-grep-py cannot check alone (utils)
                return True
        return True

    def find_all(self, root: SgNode) -> list[SgNode]:
        """Every node under ``root`` (itself included) the rule matches, in source order."""
        return root.find_all(self.config)

    def matches(self, node: SgNode) -> bool:
        """Whether ``node`` itself matches the rule (constraints and utilities included)."""
        return node.find(self.config) == node

    def may_match(self, raw: bytes, file: str, path: Path | None = None) -> bool:
        """Whether a file may hold a match.

        Its bytes ``raw`` must hold the text the rule needs, and its name must pass
        ``files``/``ignores`` (see :meth:`applies_to`).
        """
        return self.admits(raw) and self.applies_to(file, path)

    def admits(self, raw: bytes) -> bool:
        """Whether a file of bytes ``raw`` holds the text the rule needs to match in it."""
        return admits(self.required, raw)

    def applies_to(self, file: str, path: Path | None = None) -> bool:
        """Whether a file passes ``files``/``ignores``.

        ``file`` is its workspace-relative ``/``-separated name, ``path`` its
        absolute path. The globs are read relative to
        :attr:`base` when the file is inside it, as ``ast-grep scan`` reads them
        relative to the project's folder, else to ``file``, and as ast-grep's globs
        (:func:`glob_regex`: ``*`` also matches ``/``).
        """
        if not self.files and not self.ignores:
            return True
        if self.base and path is not None:
            real = os.path.realpath(path)
            if real.startswith(self.base.rstrip(os.sep) + os.sep):
                file = real[len(self.base.rstrip(os.sep)) + 1 :].replace(os.sep, "/")
        if self.ignores and glob_regex(self.ignores).match(file):
            return False
        return not self.files or glob_regex(self.files).match(file) is not None


@functools.lru_cache(maxsize=256)
def glob_regex(globs: tuple[str, ...]) -> re.Pattern[str]:
    """One regular expression matching a ``/``-separated path when any of ``globs`` does.

    The globs are read as ast-grep reads a rule's ``files``/``ignores``: the whole path must match,
    ``*`` and ``?`` also match ``/``, ``**/`` is any number of folders (none
    included), ``[...]`` a class (``[!...]`` negated).
    """
    parts: list[str] = []
    for glob in globs:
        out = ""
        index = 0
        while index < len(glob):
            if glob.startswith("**/", index):
                out += "(?:.*/)?"
                index += 3
            elif glob.startswith("/**", index) and index + 3 == len(glob):
                out += "(?:/.*)?"
                index += 3
            elif glob[index] == "*":
                out += ".*"
                index += 1
            elif glob[index] == "?":
                out += "."
                index += 1
            elif glob[index] == "[" and (close := glob.find("]", index + 2)) > 0:
                body = glob[index + 1 : close]
                negated = body.startswith("!")
                body = body.removeprefix("!").replace("\\", "\\\\")
                out += f"[{'^' if negated else ''}{body}]"
                index = close + 1
            else:
                out += re.escape(glob[index])
                index += 1
        parts.append(out)
    return re.compile("(?:" + "|".join(parts) + r")\Z", re.DOTALL)


__all__ = ["RuleMatcher", "glob_regex"]
