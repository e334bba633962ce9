"""Start-up: ``xcsh --help`` and ``xcsh ast-grep`` import only what they use.

Each command runs in a fresh interpreter; the test lists the modules it
loaded. Speed itself is measured by ``bench/startup.py``, not here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, sys
from xcsh.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""

HEAVY = {"asyncio", "pydantic", "jsonschema", "rich", "anyio", "pathspec", "anthropic", "openai"}
"""Packages neither command may load: the agent's, the renderer's, the walker's extras."""


def loaded(args: list[str], cwd: Path) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def outside_stdlib(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] not in sys.stdlib_module_names} - {
        "__main__",
        "_distutils_hack",
    }


def test_help_imports_the_dispatcher_and_the_parser_only(tmp_path: Path) -> None:
    modules = loaded(["--help"], tmp_path)
    assert outside_stdlib(modules) == {
        "xcsh",
        "xcsh.cli",
        "xcsh.cli.agent_cmd",
        "xcsh.cli.argparser",
        "xcsh.cli.stdout",  # standard library only: whether the process is xcsh's own
        # the package root's lazy exports (standard library only; nothing else of core)
        "xcsh.core",
        "xcsh.core.lazy",
    }
    assert not {m.split(".")[0] for m in modules} & HEAVY


def test_ast_grep_imports_the_engine_and_ast_grep_only(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f(x):\n    return isinstance(x, int)\n")
    modules = loaded(["ast-grep", "-p", "isinstance($A, $B)", "."], tmp_path)
    third_party = {m.split(".")[0] for m in outside_stdlib(modules)} - {"xcsh"}
    assert third_party == {"ast_grep_py"}
    assert not {m.split(".")[0] for m in modules} & HEAVY
    ours = {m for m in modules if m.startswith("xcsh.")}
    # no tools, agent, pending actions, journal or renderer for a search
    for layer in ("agent", "app", "pending", "journal", "tools", "providers", "plugins"):
        assert not {m for m in ours if m.startswith(f"xcsh.{layer}")}, layer
    assert "xcsh.structural.tools" not in ours and "xcsh.ui.render" not in ours
    # a pattern search loads no YAML-rule machinery, and no OpenSSL for hashing
    # (nothing is hashed when xcsh never changed the folder)
    assert not {m for m in ours if m.startswith("xcsh.structural.rule")}
    assert "hashlib" not in modules and "_hashlib" not in modules


def test_ast_grep_with_a_rule_loads_the_rule_machinery(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f(x):\n    return isinstance(x, int)\n")
    (tmp_path / "r.yml").write_text(
        "id: r\nlanguage: python\nrule:\n  pattern: isinstance($A, $B)\n"
    )
    modules = loaded(["ast-grep", "--rule", "r.yml", "."], tmp_path)
    assert "xcsh.structural.rules" in modules


def test_ast_edit_json_without_a_check_loads_no_settings_models_nor_the_agent(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("def f(x):\n    return isinstance(x, int)\n")
    args = ["ast-edit", "-p", "isinstance($A, $B)", "-r", "check($A, $B)", "--json", "."]
    modules = loaded(args, tmp_path)
    ours = {m for m in modules if m.startswith("xcsh.")}
    # neither the whole settings model (providers, sandbox, agent) nor the check's machinery
    for layer in ("agent", "providers", "sandbox", "plugins", "tools", "tui", "mcp"):
        assert not {m for m in ours if m.startswith(f"xcsh.{layer}")}, layer
    assert "xcsh.app.settings" not in ours and "xcsh.checks.settings" not in ours
    assert "rich" not in {m.split(".")[0] for m in modules}  # no diff is drawn
    assert not {m for m in ours if m.startswith("xcsh.structural.rule")}  # a pattern's edit
    # nothing is applied: neither the pending action (pydantic) nor the journal's apply side
    assert not {m.split(".")[0] for m in modules} & HEAVY
    assert not {m for m in ours if m.startswith("xcsh.pending")}
    assert "xcsh.journal.apply" not in ours
