"""The YAML rules a search command was given (``--rule FILE``), loaded and compiled."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.cli.errors import error

if TYPE_CHECKING:
    from xcsh.cli.options import SearchOptions
    from xcsh.structural.rules.compile import CompiledRule


def load_rules(options: SearchOptions) -> list[CompiledRule]:
    """The rules ``options`` name (loaded by ``xcsh scan``, or ``--rule FILE``); empty for none.

    Raises:
        ToolError: the file cannot be read or holds a bad rule (naming its YAML path).
    """
    if options.rules:
        return list(options.rules)
    if options.rule:
        from xcsh.structural.rules.compile import load_rule_file
        from xcsh.structural.rules.schema import RuleWarning

        warnings: list[RuleWarning] = []
        rules = load_rule_file(
            Path(options.rule), display=options.rule, strict=False, warnings=warnings
        )
        for warning in warnings:
            error(f"warning: {warning}")
        return rules
    return []
