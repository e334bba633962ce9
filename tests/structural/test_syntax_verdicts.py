"""The syntax check's verdict on rewritten Python texts, and on a rewrite that empties a block.

A faster check must give these verdicts too. tree-sitter's own has-error flag
(the ``tree-sitter-python`` wheel) does not: a block left empty (``def f():`` with
its body no longer indented) has no ERROR or MISSING node in either grammar, and
only the check's walk (a node with no text) catches it
(``devtools/check_agreement.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ast_grep_py import SgRoot

from xcsh.structural import EditOp, EditSpec, ScopeSpec, preview_edit
from xcsh.structural.edit.scan_edit import BROKEN_REASON
from xcsh.structural.edit.syntax_check import has_error, new_error

CORPUS = Path(__file__).resolve().parents[1] / "conformance" / "corpus" / "python"

BROKEN = [
    "def f(:\n    pass\n",  # an ERROR node
    "x = calc(a, b\ny = 2\n",  # an unclosed call
    "if x\n    pass\n",  # a MISSING ':'
    "def f():\nreturn 1\n",  # a body not indented: an empty block, no ERROR node
    "if x:\n    # only a comment\ny = 1\n",  # an empty block again
    "print(1))\n",  # a stray ')'
    "x = [1, 2\n",  # an unclosed list at the end of the file
    "class C:\n    def m(self):\n        return (1,\n",  # unclosed inside a method
    "a = 1 +\n",  # an operand missing
    "\ufeffdef f(:\n    pass\n",  # with a BOM
    'f"{x"\n',  # an unclosed replacement field
]
CLEAN = [
    "x = 1\n",
    "\ufeffimport os\nprint(os.sep)\n",  # a BOM
    "def f(*a, **k):\n    return [*a, *k]\n",
    "match p:\n    case [x, *rest]:\n        pass\n",
    "type Point = tuple[float, float]\n",
    'print(f"{x!r:>{width}}")\n',
    "async def f():\n    async with a as b:\n        await b\n",
    "x = 1 if y else 2  # café ☕\n",
]


def _walked(text: str) -> bool:
    """ast-grep's verdict: the tree holds an ERROR or MISSING node."""
    return has_error(SgRoot(text, "python").root())


@pytest.mark.parametrize("text", BROKEN)
def test_a_rewrite_that_would_not_parse_is_never_called_clean(text: str) -> None:
    assert _walked(text)
    assert new_error(None, text.encode(), "python").startswith("line ")


@pytest.mark.parametrize("text", CLEAN)
def test_clean_code_is_clean_for_both(text: str) -> None:
    assert not _walked(text)
    assert new_error(None, text.encode(), "python") == ""


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.py")), ids=lambda p: p.name)
def test_the_conformance_files_parse_cleanly(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert not _walked(text)
    assert new_error(None, text.encode(), "python") == ""


def test_a_language_is_checked_in_its_own_grammar() -> None:
    assert new_error(None, b"fn main() {}\n", "rust") == ""
    assert new_error(None, b"fn main( {}\n", "rust").startswith("line ")


def test_a_rewrite_that_empties_a_block_is_left_out(tmp_path: Path) -> None:
    # the body loses its indentation (the CLI writes it so): `def f():` is left with an
    # empty block, which holds no ERROR or MISSING node
    (tmp_path / "m.py").write_text("def f():\n    return g(1)\n", encoding="utf-8")
    ops = (EditOp(pat="def $F(): $$$B", out="def $F():\n$$$B"),)
    preview = preview_edit(EditSpec(ops=ops), ScopeSpec(root=tmp_path, lang="python"))
    [skipped] = preview.skipped
    assert preview.files == [] and skipped.reason == BROKEN_REASON


def test_more_errors_than_before_are_counted_by_ast_grep() -> None:
    # a file kept with its parse errors (include_parse_errors): only new ones count
    before = "def f(:\n    pass\n"
    after = before + "def g(:\n    pass\n"
    assert new_error(1, before.encode(), "python") == ""
    assert new_error(1, after.encode(), "python").startswith("line ")
