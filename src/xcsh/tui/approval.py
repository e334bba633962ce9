"""Answers to "apply this?" under ``--approve ask``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xcsh.agent import Approval

NO_REASON = "the user said no"


def parse_answer(answer: str) -> Approval:
    """``y``/``yes`` approves; ``n``/``no`` or anything else declines, the rest being the reason.

    ``"n use tabs"``, ``"no: use tabs"`` and ``"n - use tabs"`` all decline with
    reason ``"use tabs"``; a bare ``n`` gives :data:`NO_REASON`; any other text
    declines with the whole text as the reason.
    """
    from xcsh.agent import Approval

    text = answer.strip()
    word, _, rest = text.partition(" ")
    head = word.lower().rstrip(":,")
    if head in ("y", "yes"):
        return Approval(approved=True)
    reason = rest.strip().lstrip(":,-").strip() if head in ("n", "no") else text
    return Approval(approved=False, reason=reason or NO_REASON)
