"""What ``xcsh ast-grep``, ``xcsh ast-edit`` and ``xcsh scan`` were asked to do, typed.

And what an edit did (:class:`EditOutcome`), for ``xcsh scan``, which goes on after it.

Each command parses its own flags, then builds one of these values; the
search and the edit (:func:`xcsh.cli.ast_grep_cmd.run`,
:func:`xcsh.cli.ast_edit.command.run`) read only them, so ``xcsh scan`` runs
the same code by building the same values from its own flags.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xcsh.structural.rules.compile import CompiledRule


@dataclass(frozen=True)
class EditOutcome:
    """What an ``xcsh ast-edit`` run did, for a command that goes on after it.

    Args:
        code: the exit code (see :mod:`xcsh.cli.ast_edit.command`).
        applied: the edit was applied: its files are written and journaled.
        interrupted: Ctrl-C, SIGTERM or SIGHUP came once the edit was approved;
            the command should stop after it rather than start more work.
    """

    code: int
    applied: bool = False
    interrupted: bool = False


@dataclass(frozen=True, kw_only=True)
class SearchOptions:
    """A search: what it matches, where, and how it prints.

    Attributes:
        pattern: the ``-p`` pattern, or ``None`` for rules.
        rule: the ``--rule FILE`` as given (loaded when the command runs, and
            named in messages and in the pending action's record).
        rules: rules already loaded (``xcsh scan``'s project rules); when set,
            they are run instead of ``rule``'s file.
        lang: ``-l``; ``None`` reads each file in its own language.
        selector: ``--selector``.
        strictness: ``--strictness``.
        globs: ``--globs``, in order.
        limit: ``--limit`` (checked to be positive when the command runs).
        json: print JSON lines instead of text (or of the diff, for an edit).
        json_style: with ``json``, ``stream`` (JSON lines), or ``pretty``/``compact`` (one
            JSON array, indented or on one line, as ``ast-grep --json=pretty|compact``).
        paths: the PATHs; at least one (``.`` when none was given).
        heading: ``--heading`` (``auto``, ``always`` or ``never``): print the text as
            ``ast-grep run --heading`` does; ``None``: xcsh's ``path:LINE:COL:`` lines.
        report: print a rule's matches as ``ast-grep scan``'s report (``xcsh scan``).
        scan_exit: exit as ``ast-grep scan`` does (1 when a rule of severity ``error``
            matched, else 0; a scope without a file of the rules' languages is no
            error), instead of ``ast-grep run``'s 0 found, 1 none.
    """

    pattern: str | None = None
    rule: str | None = None
    rules: tuple[CompiledRule, ...] = ()
    lang: str | None = None
    selector: str | None = None
    strictness: str = "smart"
    globs: tuple[str, ...] = ()
    limit: int | None = None
    json: bool = False
    json_style: str = "stream"
    paths: tuple[str, ...] = (os.curdir,)
    heading: str | None = None
    report: bool = False
    scan_exit: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> SearchOptions:
        """The options of ``xcsh ast-grep``'s parsed arguments."""
        return cls(
            pattern=args.pattern,
            rule=args.rule,
            lang=args.lang,
            selector=args.selector,
            strictness=args.strictness,
            globs=tuple(args.globs),
            limit=args.limit,
            json=args.json,
            paths=tuple(args.paths) or (os.curdir,),
        )


@dataclass(frozen=True, kw_only=True)
class EditOptions(SearchOptions):
    """A rewrite, previewed then decided: the search's options and these.

    Attributes:
        rewrite: the ``-r`` template, or ``None`` for rules with a ``fix``.
        yes: apply without asking.
        dry_run: only preview.
        interactive: ``-i``: ask about each change (needs a terminal; not with ``json``).
        include_broken: also rewrite files whose new text would not parse.
        include_parse_errors: also rewrite files that already have parse errors.
        no_pager: never page a long preview.
        check: run the project's check on the staged preview (``--check``).
    """

    rewrite: str | None = None
    yes: bool = False
    dry_run: bool = False
    interactive: bool = False
    include_broken: bool = False
    include_parse_errors: bool = False
    no_pager: bool = False
    check: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> EditOptions:
        """The options of ``xcsh ast-edit``'s parsed arguments."""
        return cls.of_search(
            SearchOptions.from_args(args),
            rewrite=args.rewrite,
            yes=args.yes,
            dry_run=args.dry_run,
            interactive=args.interactive,
            include_broken=args.include_broken,
            include_parse_errors=args.include_parse_errors,
            no_pager=args.no_pager,
            check=args.check,
        )

    @classmethod
    def of_search(
        cls,
        search: SearchOptions,
        *,
        rewrite: str | None = None,
        yes: bool = False,
        dry_run: bool = False,
        interactive: bool = False,
        include_broken: bool = False,
        include_parse_errors: bool = False,
        no_pager: bool = False,
        check: bool = False,
    ) -> EditOptions:
        """``search``'s options, with these for the edit (``xcsh scan --fix``'s way in)."""
        return cls(
            **{field.name: getattr(search, field.name) for field in fields(SearchOptions)},
            rewrite=rewrite,
            yes=yes,
            dry_run=dry_run,
            interactive=interactive,
            include_broken=include_broken,
            include_parse_errors=include_parse_errors,
            no_pager=no_pager,
            check=check,
        )
