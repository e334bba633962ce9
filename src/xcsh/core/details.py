"""Typed details of a tool result: :class:`ToolDetails` and its one JSON adapter.

A built-in tool's result carries a frozen dataclass derived from
:class:`ToolDetails` (``BashDetails``, ``ResolveOutcome``, ...). Front ends
read its attributes. The edges that need JSON (the session file, ``--mode
json``) convert it with :meth:`ToolDetails.to_json` and read it back with
:meth:`ToolDetails.from_json`, both through one pydantic ``TypeAdapter`` per
class. Tool authors and scripts written against the dict details of earlier
versions can still read it by key: ``details["exit_code"]``, ``details ==
{...}`` and ``dict(details)`` see :meth:`ToolDetails.contract`, its JSON form
unless a class narrows it (``resolve``'s four keys).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Self

import pydantic

from xcsh.core.json_types import JsonObject, JsonValue

_ADAPTERS: dict[type[ToolDetails], pydantic.TypeAdapter[ToolDetails]] = {}
"""One adapter per details class, built on first use (building one costs milliseconds)."""


def _adapter(cls: type[ToolDetails]) -> pydantic.TypeAdapter[ToolDetails]:
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        adapter = _ADAPTERS[cls] = pydantic.TypeAdapter(cls)
    return adapter


class ToolDetails:
    """Base of the typed details of a tool result (subclasses are frozen dataclasses).

    Subclasses are declared ``@dataclass(frozen=True, kw_only=True, eq=False)``:
    equality is this class's (two details of one class compare by their JSON
    form; against a mapping, by :meth:`contract`), and they are not hashable.
    """

    __pydantic_config__ = pydantic.ConfigDict(extra="forbid")

    def to_json(self) -> JsonObject:
        """Every field, as JSON-ready data (tuples become lists, nested values dicts)."""
        data = _adapter(type(self)).dump_python(self, mode="json")
        assert isinstance(data, dict)
        return data

    @classmethod
    def from_json(cls, data: object) -> Self | None:
        """The details written by :meth:`to_json` (by this or an earlier version).

        Missing keys take their defaults; a key the class does not have makes
        ``data`` another shape.

        Returns:
            ``None`` when ``data`` does not fit this class (details of another
            shape, such as a custom tool's, a refused call's ``{"gated": true}``
            or an older version's dict).
        """
        try:
            value = _adapter(cls).validate_python(data)
        except pydantic.ValidationError:
            return None
        assert isinstance(value, cls)
        return value

    def contract(self) -> JsonObject:
        """What reading the details by key shows; :meth:`to_json` unless a class narrows it."""
        return self.to_json()

    def event_json(self) -> JsonObject:
        """What ``xcsh -p --mode json`` events print for these details: :meth:`contract`.

        A class whose contract is narrower than what a script watching the events
        needs (``resolve``'s outcome) prints :meth:`to_json` instead.
        """
        return self.contract()

    def __getitem__(self, key: str) -> JsonValue:
        return self.contract()[key]

    def get(self, key: str, default: JsonValue = None) -> JsonValue:
        """``details[key]``, or ``default`` when :meth:`contract` has no such key."""
        return self.contract().get(key, default)

    def keys(self) -> list[str]:
        """The keys of :meth:`contract` (so ``dict(details)`` works)."""
        return list(self.contract())

    def __iter__(self) -> Iterator[str]:
        return iter(self.contract())

    def __len__(self) -> int:
        return len(self.contract())

    def __contains__(self, key: object) -> bool:
        return key in self.contract()

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            assert isinstance(other, ToolDetails)
            return self.to_json() == other.to_json()
        if isinstance(other, Mapping):
            return self.contract() == dict(other)
        return NotImplemented


__all__ = ["JsonObject", "JsonValue", "ToolDetails"]
