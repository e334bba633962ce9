"""The languages ast-grep knows, their names, aliases and file extensions.

The table mirrors the ``ast-grep`` CLI 0.51 (``crates/language``): the same
canonical names, the same extensions, and the names the CLI prints in its
JSON ``language`` field. ast-grep-py panics (a ``BaseException``) on a name
it does not know, so every name goes through :func:`resolve_language` first.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from xcsh.core import ToolError


@dataclass(frozen=True, kw_only=True)
class Language:
    """One tree-sitter language as ast-grep names it.

    Attributes:
        name: the id ast-grep-py accepts (``"python"``), also the name messages use:
            the one users type for ``lang`` (``tsx``, ``cpp``, ``csharp``).
        display: the name the CLI prints in JSON output (``"Python"``, ``"Tsx"``); only
            for output that mirrors the CLI's JSON.
        extensions: file extensions without the dot, as the CLI maps them.
        aliases: other names accepted for ``lang`` (``"py"``).
    """

    name: str
    display: str
    extensions: tuple[str, ...]
    aliases: tuple[str, ...] = ()


LANGUAGES: tuple[Language, ...] = (
    Language(
        name="bash",
        display="Bash",
        extensions=(
            "bash",
            "bats",
            "cgi",
            "command",
            "env",
            "fcgi",
            "ksh",
            "sh",
            "tmux",
            "tool",
            "zsh",
        ),
    ),
    Language(name="c", display="C", extensions=("c", "h")),
    Language(
        name="cpp",
        display="Cpp",
        extensions=("cc", "hpp", "cpp", "c++", "hh", "cxx", "cu", "ino"),
        aliases=("c++",),
    ),
    Language(name="csharp", display="CSharp", extensions=("cs",), aliases=("cs",)),
    Language(name="css", display="Css", extensions=("css", "scss")),
    Language(name="dart", display="Dart", extensions=("dart",)),
    Language(name="elixir", display="Elixir", extensions=("ex", "exs")),
    Language(name="go", display="Go", extensions=("go",), aliases=("golang",)),
    Language(name="haskell", display="Haskell", extensions=("hs",)),
    Language(name="hcl", display="Hcl", extensions=("hcl",)),
    Language(name="html", display="Html", extensions=("html", "htm", "xhtml")),
    Language(name="java", display="Java", extensions=("java",)),
    Language(
        name="javascript",
        display="JavaScript",
        extensions=("cjs", "js", "mjs", "jsx"),
        aliases=("js", "jsx"),
    ),
    Language(name="json", display="Json", extensions=("json",)),
    Language(name="kotlin", display="Kotlin", extensions=("kt", "ktm", "kts")),
    Language(name="lua", display="Lua", extensions=("lua",)),
    Language(name="markdown", display="Markdown", extensions=("md", "markdown"), aliases=("md",)),
    Language(name="nix", display="Nix", extensions=("nix",)),
    Language(name="php", display="Php", extensions=("php",)),
    Language(
        name="python", display="Python", extensions=("py", "py3", "pyi", "bzl"), aliases=("py",)
    ),
    Language(name="ruby", display="Ruby", extensions=("rb", "rbw", "gemspec")),
    Language(name="rust", display="Rust", extensions=("rs",), aliases=("rs",)),
    Language(name="scala", display="Scala", extensions=("scala", "sc", "sbt")),
    Language(name="solidity", display="Solidity", extensions=("sol",)),
    Language(name="swift", display="Swift", extensions=("swift",)),
    Language(name="tsx", display="Tsx", extensions=("tsx",)),
    Language(
        name="typescript", display="TypeScript", extensions=("ts", "cts", "mts"), aliases=("ts",)
    ),
    Language(name="yaml", display="Yaml", extensions=("yaml", "yml"), aliases=("yml",)),
)

_BY_NAME: dict[str, Language] = {}
for _lang in LANGUAGES:
    for _key in (_lang.name, _lang.display.lower(), *_lang.aliases):
        _BY_NAME[_key] = _lang
_BY_EXTENSION: dict[str, Language] = {ext: lang for lang in LANGUAGES for ext in lang.extensions}


def supported_languages() -> list[str]:
    """The canonical language names, sorted (``["bash", "c", ...]``)."""
    return sorted(lang.name for lang in LANGUAGES)


def resolve_language(name: str) -> Language:
    """Look up a language by name, alias or file extension (``cc``, ``rb``), ignoring case.

    Names are read as the CLI's ``-l`` reads them.

    Raises:
        ToolError: the name is unknown; the message lists the supported names.
    """
    key = name.strip().lower()
    found = _BY_NAME.get(key) or _BY_EXTENSION.get(key.lstrip("."))
    if found is None:
        raise ToolError(
            f"Unknown language '{name}'. Supported languages: {', '.join(supported_languages())}."
        )
    return found


def language_for_path(path: str | Path) -> Language | None:
    """The language the CLI would use for ``path`` from its extension, or ``None``."""
    ext = os.path.splitext(str(path))[1].lstrip(".").lower()
    return _BY_EXTENSION.get(ext) if ext else None
