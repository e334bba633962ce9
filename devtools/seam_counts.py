"""Count, with Python's ``ast``, how typed the seams between xcsh's layers are.

Run ``python devtools/seam_counts.py [src/xcsh]``; it prints one line per figure:

- ``Any``: each use of the name ``Any`` (``Any`` or ``typing.Any``), imports left out;
- ``dict[str, Any]``: each ``dict``/``Mapping``/``MutableMapping`` subscripted ``[str, Any]``;
- string-key reads: ``x["key"]`` loads and ``x.get("key", ...)`` calls, outside the
  modules named in :data:`JSON_ADAPTERS` (where JSON is read by key on purpose);
  ``Literal["key"]`` is a type, not a read;
- details isinstance in front ends: ``isinstance`` calls whose first argument names
  ``details`` in ``cli/``, ``tui/``, ``mcp/`` and ``ui/``;
- pending-action field assignments outside ``pending/``: assignments to an attribute
  named like a field of ``PendingAction`` (``x.apply = ...``) or ``setattr`` with one;
- functions over 80 lines.

With ``--files`` it also lists the counts per file for each figure.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

FRONT_ENDS = ("cli", "tui", "mcp", "ui")
"""Packages (under ``src/xcsh``) that show tool results to people or clients."""

JSON_ADAPTERS: frozenset[str] = frozenset(
    {
        "core/details.py",
        "agent/record/persistence.py",
        "journal/records.py",
        # a YAML rule document (or the tools' `rule` argument) read into typed rules
        "structural/rules/read.py",
    }
)
"""Modules (relative to ``src/xcsh``) whose job is to read JSON by key: the tool details'
adapter, the session file's, the journal records' and the YAML rules'."""

PENDING_FIELDS = frozenset(
    {
        "label",
        "source_tool_name",
        "apply",
        "reject",
        "details",
        "preview",
        "apply_parts",
        "rebuild",
        "journaled",
        "origin",
    }
)
"""The field names of ``PendingAction``."""

LONG_FUNCTION = 80

FIGURES = (
    "Any",
    "dict[str, Any] / Mapping[str, Any]",
    "string-key reads outside JSON adapters",
    "isinstance on details in front ends",
    "pending-action field assignments outside pending/",
    f"functions over {LONG_FUNCTION} lines",
)


def _is_any(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "Any") or (
        isinstance(node, ast.Attribute) and node.attr == "Any"
    )


def _is_str_any_mapping(node: ast.Subscript) -> bool:
    value = node.value
    name = value.id if isinstance(value, ast.Name) else getattr(value, "attr", "")
    if name not in ("dict", "Dict", "Mapping", "MutableMapping"):
        return False
    key_value = node.slice
    if not isinstance(key_value, ast.Tuple) or len(key_value.elts) != 2:
        return False
    key, item = key_value.elts
    return isinstance(key, ast.Name) and key.id == "str" and _is_any(item)


def _is_string_key_read(node: ast.AST) -> bool:
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        if _names_literal(node.value):  # ``Literal["text"]`` is a type, not a key read
            return False
        return isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        first = node.args[0] if node.args else None
        return (
            node.func.attr == "get"
            and isinstance(first, ast.Constant)
            and isinstance(first.value, str)
        )
    return False


def _names_literal(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "Literal") or (
        isinstance(node, ast.Attribute) and node.attr == "Literal"
    )


def _names_details(node: ast.expr) -> bool:
    return any(
        (isinstance(sub, ast.Name) and sub.id == "details")
        or (isinstance(sub, ast.Attribute) and sub.attr == "details")
        for sub in ast.walk(node)
    )


def _annotation_nodes(tree: ast.Module) -> Iterator[ast.expr]:
    """String annotations parsed, so ``"dict[str, Any]"`` counts like the bare one."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "Any" in node.value:
            try:
                parsed = ast.parse(node.value, mode="eval")
            except SyntaxError:
                continue
            yield parsed.body


def count_file(path: Path, relative: str) -> Counter[str]:
    """The figures of one module (``relative`` is its path under ``src/xcsh``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    counts: Counter[str] = Counter()
    package = relative.split("/", 1)[0]
    import_nodes = {
        id(alias)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom | ast.Import)
        for alias in node.names
    }
    roots: list[ast.AST] = [tree, *_annotation_nodes(tree)]
    for root in roots:
        for node in ast.walk(root):
            if id(node) in import_nodes:
                continue
            if isinstance(node, ast.expr) and _is_any(node):
                counts[FIGURES[0]] += 1
            if isinstance(node, ast.Subscript) and _is_str_any_mapping(node):
                counts[FIGURES[1]] += 1
            if root is tree and relative not in JSON_ADAPTERS and _is_string_key_read(node):
                counts[FIGURES[2]] += 1
    for node in ast.walk(tree):
        if (
            package in FRONT_ENDS
            and isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and node.args
            and _names_details(node.args[0])
        ):
            counts[FIGURES[3]] += 1
        if package != "pending":
            counts[FIGURES[4]] += _pending_assignments(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            end = node.end_lineno or node.lineno
            if end - node.lineno + 1 > LONG_FUNCTION:
                counts[FIGURES[5]] += 1
    return counts


def _pending_assignments(node: ast.AST) -> int:
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    hits = sum(
        1
        for target in targets
        if isinstance(target, ast.Attribute)
        and target.attr in PENDING_FIELDS
        and not (isinstance(target.value, ast.Name) and target.value.id == "self")
    )
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("setattr", "object.__setattr__")
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and node.args[1].value in PENDING_FIELDS
    ):
        hits += 1
    return hits


def count_tree(root: Path) -> tuple[Counter[str], dict[str, Counter[str]]]:
    """The figures summed over every ``*.py`` under ``root``, and per file."""
    total: Counter[str] = Counter()
    per_file: dict[str, Counter[str]] = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        counts = count_file(path, relative)
        per_file[relative] = counts
        total.update(counts)
    return total, per_file


def main(argv: list[str] | None = None) -> int:
    """Print the figures for the tree named on the command line (``src/xcsh`` by default)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("root", nargs="?", default="src/xcsh", type=Path)
    parser.add_argument("--files", action="store_true", help="list the counts per file")
    args = parser.parse_args(argv)
    total, per_file = count_tree(args.root)
    for figure in FIGURES:
        print(f"{total[figure]:6d}  {figure}")
        if args.files:
            ranked = sorted(per_file.items(), key=lambda item: -item[1][figure])
            for name, counts in ranked:
                if counts[figure]:
                    print(f"          {counts[figure]:4d}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
