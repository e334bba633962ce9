"""A YAML rule's ``labels:``: what its report points at, and with which words.

Without ``labels:`` ast-grep labels a match with the matched node (primary) and the
nodes its relational parts (``inside``, ``has``, ...) matched (secondary). With it,
those labels are replaced by the rule's: for each metavariable named, the node it
captured (or the span from the first to the last node of a ``$$$`` capture), with
the label's ``style`` and optional ``message``; a name the match did not bind gives
no label.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ast_grep_py import SgNode


@dataclass(frozen=True, kw_only=True)
class RuleLabel:
    """One entry of ``labels:``: the metavariable ``name``, its style and message."""

    name: str
    primary: bool
    message: str | None = None


@dataclass(frozen=True, kw_only=True)
class LabelNodes:
    """A label of one match: the nodes it spans (``first`` to ``last``), style and message."""

    first: SgNode
    last: SgNode
    primary: bool
    message: str | None = None


def label_nodes(node: SgNode, labels: tuple[RuleLabel, ...] | None) -> list[LabelNodes]:
    """The labels of the match ``node``: the rule's ``labels``, or the CLI's default ones."""
    if labels is None:
        out = [LabelNodes(first=node, last=node, primary=True)]
        out.extend(
            LabelNodes(first=n, last=n, primary=False)
            for n in node.get_multiple_matches("secondary")
        )
        return out
    found = []
    for label in labels:
        single = node.get_match(label.name)
        if single is not None:
            first = last = single
        else:
            many = node.get_multiple_matches(label.name)
            if not many:
                continue
            first, last = many[0], many[-1]
        found.append(
            LabelNodes(first=first, last=last, primary=label.primary, message=label.message)
        )
    return found
