"""A pydantic ``ValidationError`` worded for people: one ``place: problem`` per error.

Every layer that turns pydantic's report into a message (a tool's arguments, the
provider settings, a session file's record) reads it through :func:`problems`,
so the place of a value is written the same way everywhere (``edits.0.old_text``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


@dataclass(frozen=True, kw_only=True)
class Problem:
    """One error of a ``ValidationError``.

    Attributes:
        where: the value's place, its keys and indexes joined by dots
            (``edits.0.old_text``); ``""`` for the whole input.
        message: pydantic's sentence (``Input should be a valid string``).
        kind: pydantic's error type (``string_type``, ``missing``, ...).
        got: the value given, when it is a scalar (text, number, boolean or
            ``None``) and the error is not a missing value; else ``None``.
        shown: whether ``got`` is meaningful (a scalar was given).
    """

    where: str
    message: str
    kind: str
    got: object = None
    shown: bool = False

    @property
    def key(self) -> str:
        """The first part of ``where``: the top-level key (``edits`` of ``edits.0.old_text``)."""
        return self.where.split(".")[0]

    @property
    def path(self) -> tuple[str, ...]:
        """``where`` split into its keys and indexes (``("edits", "0", "old_text")``)."""
        return tuple(self.where.split(".")) if self.where else ()

    def worded(self, whole: str = "") -> str:
        """``where: message``, with ``whole`` for the place when it is the whole input.

        Args:
            whole: the name of the whole input (``"(arguments)"``); with ``""``
                and no place, the message alone.
        """
        place = self.where or whole
        return f"{place}: {self.message}" if place else self.message


def problems(exc: ValidationError) -> tuple[Problem, ...]:
    """Each error of ``exc``, in pydantic's order (at least one)."""
    found = []
    for err in exc.errors(include_url=False):
        got = err.get("input")
        scalar = isinstance(got, str | int | float | bool) or got is None
        shown = err["type"] != "missing" and scalar
        found.append(
            Problem(
                where=".".join(str(part) for part in err["loc"]),
                message=err["msg"],
                kind=err["type"],
                got=got if shown else None,
                shown=shown,
            )
        )
    return tuple(found)
