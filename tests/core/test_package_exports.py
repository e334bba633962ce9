"""Every package's ``__all__`` lists exactly the names it imports for export, and each
of them resolves (the lazy ones through the package's ``__getattr__``)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "xcsh"
PACKAGES = sorted(
    p.parent.relative_to(SRC.parent).as_posix().replace("/", ".") for p in SRC.rglob("__init__.py")
)


def _imported_names(tree: ast.Module, *, lazy_only: bool) -> set[str]:
    """Names the package imports from xcsh: under ``TYPE_CHECKING`` only (the ones it
    resolves lazily, for export alone) or also at its top level."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If):
            body = node.body
        elif lazy_only:
            continue
        else:
            body = [node]
        for inner in body:
            if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith("xcsh"):
                names.update(alias.asname or alias.name for alias in inner.names)
    return names


def _defined_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


@pytest.mark.parametrize("package", PACKAGES)
def test_all_matches_what_the_package_exports(package: str) -> None:
    path = SRC.parent / package.replace(".", "/") / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = importlib.import_module(package)
    exported = set(getattr(module, "__all__", ()))
    lazy = _imported_names(tree, lazy_only=True)
    assert sorted(lazy - exported) == [], f"{package} loads names lazily but does not export them"
    unknown = exported - _imported_names(tree, lazy_only=False) - _defined_names(tree)
    assert sorted(unknown) == [], f"{package} exports names it neither imports nor defines"
    for name in sorted(exported):
        assert getattr(module, name) is not None or name in vars(module), name
