"""The keys one part of xcsh reads from a settings file, typed: :class:`SettingsKeys`.

Each part that reads ``settings.toml`` declares its keys as a subclass, each
field with the type it accepts and its default; pydantic checks the values
as TOML gives them (strict: ``"5"`` is not a number, ``1`` is not ``true``).
A value pydantic refuses is worded by the part (:meth:`SettingsKeys.refused`),
so the message names the file, the key and the fix in that part's words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Self

from pydantic import BaseModel, ConfigDict, ValidationError

from xcsh.core.errors import UsageError
from xcsh.core.validation import Problem, problems


class SettingsKeys(BaseModel):
    """Base of a part's settings keys: frozen, strict, other keys of the file left out.

    A subclass declares each key it reads as a field and words a refused value
    in :meth:`refused` (or, for a key holding a table, :meth:`refusal`).
    """

    model_config = ConfigDict(frozen=True, strict=True)

    @classmethod
    def from_file(cls, values: Mapping[str, object], source: str = "settings.toml") -> Self:
        """The declared keys of a settings file's top level, checked (other keys are not read).

        A key the file does not set holds its default; which keys it sets is
        ``model_fields_set``.

        Args:
            values: the file's top level, as TOML gives it.
            source: the file's path, for messages.

        Raises:
            UsageError: a value of the wrong kind, worded by :meth:`refusal`.
        """
        given = {key: values[key] for key in cls.model_fields if key in values}
        try:
            return cls.model_validate(given)
        except ValidationError as exc:
            raise cls.refusal(problems(exc), given, source) from exc

    @classmethod
    def refusal(
        cls, found: Sequence[Problem], given: Mapping[str, object], source: str
    ) -> UsageError:
        """The error for the values pydantic refused.

        Args:
            found: what pydantic refused, in its order (at least one).
            given: the declared keys the file sets, as it gives them.
            source: the file's path.

        This one words the first refused key with :meth:`refused`, or names
        pydantic's sentence when that has no words for it. A part whose keys
        hold tables (where the place inside matters) words it here instead.
        """
        first = found[0]
        worded = cls.refused(first.key, given.get(first.key), source)
        if worded is not None:
            return worded
        return UsageError(
            f"{first.where} in {source}: {first.message}", hint=f"fix {first.key} in {source}"
        )

    @classmethod
    def refused(cls, key: str, value: object, source: str) -> UsageError | None:
        """The error for ``key``'s ``value`` (as the file gives it), in the part's words.

        Names the file (``source``), the key, what it takes and the value, with
        a hint showing a line to write. None: no words for ``key``.
        """
        return None
