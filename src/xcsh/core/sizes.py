"""Sizes in settings.toml: a number of bytes, or a string such as ``"512 MiB"``.

One reading for every size setting (``index_memory``, ``journal_max_bytes``), so
a form one accepts the other accepts too. Standard library only.
"""

from __future__ import annotations

_UNITS = {"": 1, "b": 1, "kib": 1024, "mib": 1024**2, "gib": 1024**3}


def parse_size(value: object) -> int | None:
    """``value`` as bytes, or ``None`` when it is not a size.

    Args:
        value: a settings value: a whole number of bytes (0 or more; not a bool),
            or a string of digits and an optional unit, ``"512 MiB"``, ``"64kib"``,
            ``"1024"`` (units KiB, MiB, GiB, any case).

    Returns:
        The number of bytes; ``None`` for anything else (negative, fractional,
        an unknown unit, another type).
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value if value >= 0 else None
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    number = text.rstrip("kmgib ")
    unit = text[len(number) :].strip()
    if number.isdigit() and unit in _UNITS:
        return int(number) * _UNITS[unit]
    return None
