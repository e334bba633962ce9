"""Every package's ``__all__`` lists exactly the names it imports for export, and each
of them resolves (the lazy ones through the package's ``__getattr__``)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from xcsh.core.lazy import LazyExports, lazy_exports

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


def _type_checking_imports(tree: ast.Module) -> dict[str, str]:
    """Each name imported under ``if TYPE_CHECKING:``, mapped to the module it comes from."""
    owners: dict[str, str] = {}
    for node in tree.body:
        if not isinstance(node, ast.If):
            continue
        for inner in node.body:
            if isinstance(inner, ast.ImportFrom) and inner.module:
                owners.update((alias.asname or alias.name, inner.module) for alias in inner.names)
    return owners


@pytest.mark.parametrize("package", PACKAGES)
def test_lazy_names_are_the_ones_imported_for_type_checking(package: str) -> None:
    """A lazily exported name comes from the module the package imports it from for type
    checkers and the import-layer check, so no edge of the layer contract is hidden."""
    path = SRC.parent / package.replace(".", "/") / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    handwritten = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
    ]
    assert handwritten == [], f"{package} writes its own __getattr__; use lazy_exports"
    module = importlib.import_module(package)
    getter = vars(module).get("__getattr__")
    owners = dict(getter.owners) if isinstance(getter, LazyExports) else {}
    assert owners == _type_checking_imports(tree)


def test_a_name_not_exported_is_an_attribute_error() -> None:
    import xcsh.core

    with pytest.raises(AttributeError, match=r"module 'xcsh\.core' has no attribute 'nothing'"):
        _ = xcsh.core.nothing  # type: ignore[attr-defined]


def test_a_name_listed_under_two_modules_is_refused() -> None:
    with pytest.raises(ValueError, match="'A' is exported from two modules"):
        lazy_exports("pkg", {"pkg.one": ("A",), "pkg.two": ("A", "B")})
