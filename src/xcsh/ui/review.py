"""Reviewing a preview change by change, as ``git add -p`` does, and clear answers.

:class:`ReviewWalk` is the front-end-neutral state of one review: the
terminal's ``/review``, ``--approve ask``'s ``[r]eview`` and
``xcsh ast-edit -i`` each show :meth:`ReviewWalk.current`, read a key and
pass it to :meth:`ReviewWalk.answer` until :attr:`ReviewWalk.done`; then
:attr:`ReviewWalk.kept` holds the change ids to apply (in preview order).
Answers are explicit: anything but a listed key is refused, and the caller
asks again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rich.console import Group, RenderableType
from rich.text import Text

if TYPE_CHECKING:
    from xcsh.pending import PreviewChange

REVIEW_KEYS = {
    "y": "apply this change",
    "n": "skip this change",
    "a": "apply this change and the rest of this file",
    "d": "skip this change and the rest of this file",
    "q": "quit: skip this change and all the rest",
}
"""The keys of a review, as in ``git add -p``."""
REVIEW_PROMPT = "Apply this change? [y,n,a,d,q,?] "
REVIEW_HELP = "\n".join(f"{key} - {what}" for key, what in REVIEW_KEYS.items()) + (
    "\n? - show this help"
)

Decision = Literal["apply", "discard", "review"]

_DECISIONS: dict[str, Decision] = {
    "a": "apply",
    "apply": "apply",
    "y": "apply",
    "yes": "apply",
    "d": "discard",
    "discard": "discard",
    "n": "discard",
    "no": "discard",
    "r": "review",
    "review": "review",
}


@dataclass(frozen=True, kw_only=True)
class Answer:
    """A clear answer to "apply this preview?".

    Args:
        decision: ``apply``, ``discard`` or ``review``.
        reason: what followed the word (``"d keep print"`` gives ``"keep print"``).
    """

    decision: Decision
    reason: str = ""


def parse_decision(text: str, *, review: bool = True) -> Answer | None:
    """Read an answer to ``[a]pply / [d]iscard / [r]eview``; ``None`` when it is not clear.

    The first word decides (``a``/``apply``/``y``/``yes``, ``d``/``discard``/
    ``n``/``no``, and ``r``/``review`` when ``review`` is allowed), in any case,
    followed by ``:``, ``,`` or ``-`` or not; the rest is the reason. An empty
    answer, ``sure``, ``ok`` or any other word is not clear.
    """
    stripped = text.strip()
    word, _, rest = stripped.partition(" ")
    decision = _DECISIONS.get(word.lower().rstrip(":,-"))
    if decision is None or (decision == "review" and not review):
        return None
    return Answer(decision=decision, reason=rest.strip().lstrip(":,-").strip())


class ReviewWalk:
    """The state of a review of ``changes``, one at a time.

    Args:
        changes: the preview's changes, in preview order.
    """

    def __init__(self, changes: Sequence[PreviewChange]) -> None:
        self.changes = list(changes)
        self._index = 0
        self._kept: list[str] = []
        self.quit = False

    @property
    def done(self) -> bool:
        """True when every change has an answer (or the review was quit)."""
        return self.quit or self._index >= len(self.changes)

    @property
    def position(self) -> int:
        """1-based number of :attr:`current` among all changes."""
        return self._index + 1

    @property
    def current(self) -> PreviewChange | None:
        """The change waiting for an answer, or ``None`` when done."""
        return None if self.done else self.changes[self._index]

    @property
    def kept(self) -> list[str]:
        """The ids of the changes to apply, in preview order."""
        return list(self._kept)

    def answer(self, key: str) -> bool:
        """Apply one key of :data:`REVIEW_KEYS` to :attr:`current`.

        Returns:
            False (nothing changes) when ``key`` is not one of them, or when
            the review is done; the caller shows :data:`REVIEW_HELP` and asks again.
        """
        choice = key.strip().lower()
        change = self.current
        if change is None or choice not in REVIEW_KEYS:
            return False
        if choice == "q":
            self.quit = True
            return True
        rest_of_file = choice in ("a", "d")
        keep = choice in ("y", "a")
        while True:
            if keep:
                self._kept.append(change.id)
            self._index += 1
            following = self.current
            if not rest_of_file or following is None or following.file != change.file:
                return True
            change = following


def render_change(change: PreviewChange, position: int, total: int) -> RenderableType:
    """One change for a review: ``c3 (2/5) a.py:3:1`` then its ``-``/``+`` lines."""
    header = Text(f"{change.id} ({position}/{total}) {change.where}", style="bold")
    body = Text()
    if change.summary and not (change.old or change.new):
        body.append(f"  {change.summary}\n")
    for line in change.old.split("\n") if change.old else []:
        body.append(f"- {line}\n", style="red")
    for line in change.new.split("\n") if change.new else []:
        body.append(f"+ {line}\n", style="green")
    if change.old and not change.new:
        body.append("+ (deleted)\n", style="green")
    return Group(header, body)


__all__ = [
    "REVIEW_HELP",
    "REVIEW_KEYS",
    "REVIEW_PROMPT",
    "Answer",
    "Decision",
    "ReviewWalk",
    "parse_decision",
    "render_change",
]
