"""``pyproject.toml`` declares exactly the distributions xcsh's own modules import.

A module imported but not declared works only while some other package happens to
pull it in; a declared package nobody imports costs every user an install. The
binaries xcsh runs rather than imports (``ast-grep-cli``, ``ripgrep``) are declared
on purpose.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN_NOT_IMPORTED = {"ast-grep-cli", "ripgrep"}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imported_top_names() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "src" / "xcsh").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {name for name in names if name not in sys.stdlib_module_names and name != "xcsh"}


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {
        _normal(re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0]) for spec in project["dependencies"]
    }


def test_every_imported_distribution_is_declared_and_every_declared_one_is_used() -> None:
    owners = importlib.metadata.packages_distributions()
    imported = {
        _normal(dist) for name in _imported_top_names() for dist in owners.get(name, [name])
    }
    declared = _declared()
    assert sorted(imported - declared) == [], "imported but not declared in pyproject.toml"
    assert sorted(declared - imported - RUN_NOT_IMPORTED) == [], "declared but never imported"
