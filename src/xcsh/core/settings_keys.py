"""The keys one part of xcsh reads from a settings file, typed: :class:`SettingsKeys`.

Each part that reads ``settings.toml`` declares its keys as a subclass, each
field with the type it accepts and its default; pydantic checks the values
as TOML gives them (strict: ``"5"`` is not a number, ``1`` is not ``true``).
A value pydantic refuses is worded by the part (:meth:`SettingsKeys.refusal`),
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
    in :meth:`refusal`.
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

        Subclasses word it; this one names the first refused place and
        pydantic's sentence.
        """
        first = found[0]
        return UsageError(
            f"{first.where} in {source}: {first.message}", hint=f"fix {first.key} in {source}"
        )
