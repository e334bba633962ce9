"""A deny rule for ``touch`` against 32 ways of running it: the command line is parsed
with tree-sitter's bash grammar, wrappers and quoting are looked through, and what
cannot be known without running it is unresolved (refused where nobody can be asked).
A copy or a link of the program under another name is the documented limit."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from helpers import run_steps
from helpers import tool_results as results
from xcsh.agent.policy.settings import ApprovalKeys, parse_tool_policy
from xcsh.agent.policy.tools import ToolPolicy

DENY_TOUCH = '[[approval.rules]]\nprefix = "touch"\ndecision = "deny"\n'

DENIED = [
    "touch x",
    "/usr/bin/touch x",
    "true && touch x",
    "echo $(touch x)",
    "echo `touch x`",
    "(touch x)",
    "env touch x",
    "env -i FOO=1 touch x",
    "command touch x",
    "nohup touch x",
    "bash -c 'touch x'",
    'sh -c "touch x"',
    "eval 'touch x'",
    "echo x | xargs touch",
    "find . -maxdepth 0 -exec touch x \\;",
    "time touch x",
    "nice -n 5 touch x",
    "timeout 5 touch x",
    "f() { touch x; }; f",
    "$'\\x74ouch' x",
    "exec touch x",
    "{ touch x; }",
    "if true; then touch x; fi",
    "for i in 1; do touch x; done",
    "\\touch x",
]
UNRESOLVED = [
    'eval "$cmd"',
    "$(echo touch) x",
    "x=touch; $x y",
    "touch${IFS}x",
    "source <(echo touch x)",
    "bash <<< 'touch x'",
]
LIMITS = ["cp /usr/bin/touch t && ./t x", "ln -s /usr/bin/touch t && ./t x"]


def policy() -> ToolPolicy:
    return parse_tool_policy(
        ApprovalKeys.from_file(tomllib.loads(DENY_TOUCH), "settings.toml"), source="settings.toml"
    )


@pytest.mark.parametrize(
    ("command", "outcome"),
    [
        *((c, "denied") for c in DENIED),
        *((c, "unresolved") for c in UNRESOLVED),
        *((c, "runs") for c in LIMITS),
    ],
)
def test_a_deny_rule_holds_against_32_forms(command: str, outcome: str) -> None:
    verdict = policy().decide("bash", {"command": command})
    got = "denied" if verdict.decision == "deny" else "unresolved" if verdict.unresolved else "runs"
    assert got == outcome, verdict
    if outcome == "denied":
        assert verdict.why == "prefix 'touch' = 'deny'"


def test_harmless_commands_stay_allowed() -> None:
    for command in (
        "ls -l",
        "git status | head",
        "bash script.sh",
        "echo $HOME",
        "make -j$(nproc)",
    ):
        verdict = policy().decide("bash", {"command": command})
        assert verdict.decision == "allow" and not verdict.unresolved, (command, verdict)


def test_unresolved_commands_are_refused_in_print_mode(tmp_path: Path, xcsh_home: Path) -> None:
    calls = [
        {"name": "bash", "arguments": {"command": "x=touch; $x made-by-variable"}},
        {"name": "bash", "arguments": {"command": "bash <<< 'touch made-by-here-string'"}},
        {"name": "bash", "arguments": {"command": "env nice touch made-by-wrappers"}},
        {"name": "bash", "arguments": {"command": "echo fine > allowed.txt"}},
    ]
    code, events, err = run_steps(tmp_path, xcsh_home, calls, DENY_TOUCH)
    assert code == 0, err
    variable, here, wrapped, fine = results(events)
    assert (
        variable[0]
        and variable[1].startswith("Refused by the user's approval rules in ")
        and "a program named by a variable or substitution" in variable[1]
    )
    assert here[0] and "a shell reading commands from its input" in here[1]
    assert wrapped[0] and "prefix 'touch' = 'deny'" in wrapped[1]
    assert not fine[0]
    project = tmp_path / "proj"
    assert sorted(p.name for p in project.iterdir()) == ["allowed.txt"]
