"""Figures on the shape of xcsh's code, read with Python's ``ast`` and ``tomllib``.

Run ``python devtools/shape_figures.py [ROOT]`` (``ROOT`` is a checkout, default the
current folder); it prints one line per figure:

- ``Any``/``object`` annotations: parameters, returns and class fields annotated with
  ``Any`` or ``object`` (anywhere in the annotation: ``dict[str, object]`` counts);
- functions over 60 lines, and functions taking more than 8 parameters (``self`` and
  ``cls`` left out);
- modules over 400 lines;
- ``isinstance`` on a resolve outcome outside ``pending/``;
- import-linter contracts and their ``ignore_imports`` (from ``pyproject.toml``);
- lines in ``src/``.

No figure is a goal by itself: they are symptoms to read beside the code.
"""

from __future__ import annotations

import argparse
import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

LONG_FUNCTION = 60
MANY_PARAMETERS = 8
LONG_MODULE = 400


def _names(node: ast.AST | None) -> Iterator[str]:
    if node is None:
        return
    for part in ast.walk(node):
        if isinstance(part, ast.Name):
            yield part.id
        elif isinstance(part, ast.Attribute):
            yield part.attr
        elif isinstance(part, ast.Constant) and isinstance(part.value, str):
            # string annotations ("object | None") under `from __future__ import annotations`
            try:
                yield from _names(ast.parse(part.value, mode="eval"))
            except SyntaxError:
                continue


def _loose(node: ast.AST | None) -> bool:
    return any(name in ("Any", "object") for name in _names(node))


def _annotations(tree: ast.Module) -> Iterator[ast.AST | None]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                yield arg.annotation
            for rest in (args.vararg, args.kwarg):
                if rest is not None:
                    yield rest.annotation
            yield node.returns
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.AnnAssign):
                    yield item.annotation


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = node.args
    names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
    return len([n for n in names if n not in ("self", "cls")])


def figures(root: Path) -> dict[str, int]:
    """Each figure of the module docstring for the checkout at ``root``."""
    src = root / "src" / "xcsh"
    loose = long_functions = many_parameters = long_modules = outcome_checks = lines = 0
    for path in sorted(src.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        count = len(text.splitlines())
        lines += count
        long_modules += count > LONG_MODULE
        loose += sum(1 for annotation in _annotations(tree) if _loose(annotation))
        in_pending = path.relative_to(src).parts[0] == "pending"
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                span = (node.end_lineno or node.lineno) - node.lineno + 1
                long_functions += span > LONG_FUNCTION
                many_parameters += _parameters(node) > MANY_PARAMETERS
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "isinstance"
                and not in_pending
                and "ResolveOutcome" in set(_names(node.args[1] if len(node.args) > 1 else None))
            ):
                outcome_checks += 1
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config.get("tool", {}).get("importlinter", {}).get("contracts", [])
    ignored = sum(len(c.get("ignore_imports", [])) for c in contracts)
    return {
        "Any/object annotations (parameters, returns, class fields)": loose,
        f"functions over {LONG_FUNCTION} lines": long_functions,
        f"functions with more than {MANY_PARAMETERS} parameters": many_parameters,
        f"modules over {LONG_MODULE} lines": long_modules,
        "isinstance on resolve outcomes outside pending/": outcome_checks,
        "import-linter contracts": len(contracts),
        "import-linter ignore_imports": ignored,
        "lines in src/": lines,
    }


def main() -> None:
    """Print the figures of the checkout named on the command line (default: here)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=".", type=Path)
    for name, value in figures(parser.parse_args().root).items():
        print(f"{name}: {value}")


if __name__ == "__main__":
    main()
