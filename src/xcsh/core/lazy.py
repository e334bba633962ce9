"""Lazy exports: a package's public names imported from their modules on first use.

A package that re-exports names from heavy modules (pydantic, rich, ast-grep's
tools) sets its module ``__getattr__`` to a :class:`LazyExports`, so
importing the package loads none of them. The package keeps a real
``from ... import ...`` of each name under ``if TYPE_CHECKING:``: type
checkers and the import-layer check see those edges, and
``tests/core/test_package_exports.py`` checks that they name the same modules
and names as the :class:`LazyExports` does.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping


class LazyExports:
    """A package's module ``__getattr__`` (PEP 562) that imports each name on first use.

    Build it with :func:`lazy_exports` (a plain class, not a dataclass: the
    package root uses it, and ``xcsh --help`` should not pay for importing
    :mod:`dataclasses`).

    Attributes:
        package: the package's dotted name, for the error message.
        owners: each exported name, mapped to the dotted name of the module it
            comes from.
    """

    __slots__ = ("owners", "package")

    def __init__(self, package: str, owners: Mapping[str, str]) -> None:
        self.package = package
        self.owners: Mapping[str, str] = dict(owners)

    def __call__(self, name: str) -> object:
        """The exported ``name``, imported from its module.

        Raises:
            AttributeError: ``name`` is not one of :attr:`owners` (the message
                reads as Python's own for a missing module attribute).
        """
        module = self.owners.get(name)
        if module is None:
            raise AttributeError(f"module {self.package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)


def lazy_exports(package: str, modules: Mapping[str, Iterable[str]]) -> LazyExports:
    """The ``__getattr__`` of ``package``, which exports ``modules``' names lazily.

    Args:
        package: the package's dotted name (``__name__``).
        modules: each module's dotted name, mapped to the names the package
            exports from it (``{"xcsh.core.errors": ("ToolError", ...)}``).

    Raises:
        ValueError: a name is listed under two modules.
    """
    owners: dict[str, str] = {}
    for module, names in modules.items():
        for name in names:
            if owners.setdefault(name, module) != module:
                raise ValueError(f"{package}: {name!r} is exported from two modules")
    return LazyExports(package, owners)


__all__ = ["LazyExports", "lazy_exports"]
