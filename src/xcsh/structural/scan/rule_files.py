"""ast-grep's own YAML files, which a pattern rewrite without a language leaves alone.

Without ``-l`` a pattern is tried in every language where it parses, YAML
included: ``print($A)`` is also a YAML scalar, so it matched the
``pattern: print($A)`` line of the project's rule files, and a rewrite for
Python was refused for changing "several languages" (or, with the CLI,
rewrote the rule itself). A rule file is written for ast-grep, not part of the
code a pattern rewrite is meant for: such an edit leaves out the project's
``sgconfig.yml`` and every YAML file holding a rule (top-level ``rule:`` and
``language:`` keys, as ``ast-grep scan`` requires of one). With ``-l yaml`` they
are edited like any YAML file; searches still find matches in them, as the
CLI's do.
"""

from __future__ import annotations

import re
from pathlib import Path

from xcsh.fs import read_regular_bytes

CONFIG_NAMES = frozenset({"sgconfig.yml", "sgconfig.yaml"})
_RULE = re.compile(rb"(?m)^rule[ \t]*:")
_LANGUAGE = re.compile(rb"(?m)^language[ \t]*:")
_READ_AT_MOST = 1024 * 1024
"""Bytes read to recognise a rule file (one is a few hundred; a bigger YAML file is data)."""


def is_rule_file(path: Path, language: str) -> bool:
    """Whether ``path`` (of the language named ``language``) is ast-grep's own YAML.

    That is a project configuration (``sgconfig.yml``) or a rule file: a YAML file
    with top-level ``rule:`` and ``language:`` keys. A file that cannot be read is not
    one (the scan reports it as it does any other).
    """
    if language != "yaml":
        return False
    if path.name in CONFIG_NAMES:
        return True
    try:
        head = read_regular_bytes(path, _READ_AT_MOST)
    except OSError:
        return False
    return _RULE.search(head) is not None and _LANGUAGE.search(head) is not None
