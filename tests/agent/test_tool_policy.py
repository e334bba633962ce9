"""The user's approval rules: per tool and per bash command prefix, the strictest
matching rule wins, examples are checked when settings load, and the rules are
enforced where tools run (through the real binary with the scripted provider)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers import run_steps
from helpers import tool_results as results
from xcsh.agent.policy.settings import ApprovalKeys, parse_tool_policy
from xcsh.agent.policy.tools import simple_commands
from xcsh.core import UsageError

RULES = """
[approval]
write = "deny"

[[approval.rules]]
prefix = "git status"
decision = "allow"
match = ["git status --short"]
not_match = ["git stash"]

[[approval.rules]]
prefix = "rm"
decision = "ask"

[[approval.rules]]
prefix = "curl"
decision = "deny"
match = ["FOO=1 curl -s http://example.invalid", "/usr/bin/curl x"]
"""


def policy(text: str = RULES) -> Any:
    import tomllib

    return parse_tool_policy(
        ApprovalKeys.from_file(tomllib.loads(text), "settings.toml"), source="settings.toml"
    )


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("git status", "allow"),
        ("git status --short", "allow"),
        ("git stash", "allow"),  # no rule: the bash default (allow)
        ("rm -rf build", "ask"),
        ("curl -s x", "deny"),
        ("git status && curl x", "deny"),  # the strictest part wins
        ("echo $(curl x)", "deny"),
        ("echo `rm x`", "ask"),
        ("ls | xargs echo; rm a", "ask"),
        ("echo 'curl is just text'", "allow"),
        ("echo hi > rm", "allow"),  # a redirection target is not a command
        ("echo 'unbalanced", "deny"),
    ],
)
def test_the_strictest_matching_rule_wins(command: str, decision: str) -> None:
    assert policy().decide("bash", {"command": command}).decision == decision


def test_tool_decisions_and_rule_names() -> None:
    rules = policy()
    assert rules.decide("write", {"path": "a"}).decision == "deny"
    assert rules.decide("edit", {"path": "a"}).decision == "allow"
    verdict = rules.decide("bash", {"command": "curl x"})
    assert verdict.why == "prefix 'curl' = 'deny'"
    bash_asks = policy(
        '[approval]\nbash = "ask"\n[[approval.rules]]\nprefix="ls"\ndecision="allow"'
    )
    assert bash_asks.decide("bash", {"command": "ls -l"}).decision == "allow"
    assert bash_asks.decide("bash", {"command": "make"}).decision == "ask"


def test_simple_commands_split_at_operators() -> None:
    assert simple_commands("A=1 git status && (cd x; make -j2) | tee log 2>&1") == [
        ["git", "status"],
        ["cd", "x"],
        ["make", "-j2"],
        ["tee", "log"],
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[[approval.rules]]\nprefix = "git"\ndecision = "allow"\nnot_match = ["git push"]',
            "settings.toml: approval rule 1 ('git'): the example 'git push' matches the rule, "
            "but is listed in not_match",
        ),
        (
            '[[approval.rules]]\nprefix = "rm -r"\ndecision = "ask"\nmatch = ["rm -f x"]',
            "settings.toml: approval rule 1 ('rm -r'): the example 'rm -f x' does not match the "
            "rule, but is listed in match",
        ),
        (
            '[approval]\nbash = "maybe"',
            'settings.toml: approval.bash must be "allow", "ask" or "deny", not \'maybe\'',
        ),
        (
            '[[approval.rules]]\nprefix = "ls"\ndecision = "allow"\nmatches = ["ls"]',
            "settings.toml: approval rule 1: unknown key 'matches'",
        ),
    ],
)
def test_examples_and_values_are_checked_when_settings_load(text: str, message: str) -> None:
    with pytest.raises(UsageError) as info:
        policy(text)
    assert str(info.value).startswith(message), str(info.value)


# -- through the real binary ------------------------------------------------------------


def test_deny_and_prefix_rules_are_enforced_by_the_binary(tmp_path: Path, xcsh_home: Path) -> None:
    project = tmp_path / "proj"
    calls = [
        {"name": "write", "arguments": {"path": "new.txt", "content": "x"}},
        {"name": "bash", "arguments": {"command": "touch curl-ran; curl -s x"}},
        {"name": "bash", "arguments": {"command": "echo status > allowed.txt"}},
    ]
    settings = RULES.replace('prefix = "git status"', 'prefix = "echo"').replace(
        'match = ["git status --short"]\nnot_match = ["git stash"]', ""
    )
    settings = settings.replace(
        'prefix = "rm"\ndecision = "ask"', 'prefix = "rm"\ndecision = "deny"'
    )
    code, events, err = run_steps(tmp_path, xcsh_home, calls, settings)
    assert code == 0, err
    write, curl, echo = results(events)
    assert write[0] and write[1].startswith(
        "Denied by the user's approval rules (write = 'deny' in "
    )
    assert curl[0] and "prefix 'curl' = 'deny'" in curl[1]
    assert "nothing was run" in curl[1]
    assert not (project / "new.txt").exists()
    assert not (project / "curl-ran").exists()  # the allowed part did not run either
    assert echo == (False, "(no output)\n\nExit code: 0")
    assert (project / "allowed.txt").read_text() == "status\n"


def test_ask_rules_without_a_terminal_are_refused_at_start(tmp_path: Path, xcsh_home: Path) -> None:
    calls = [{"name": "bash", "arguments": {"command": "touch made"}}]
    code, events, err = run_steps(tmp_path, xcsh_home, calls, RULES)
    assert code == 2 and events == []
    assert "approval rules ask before some tool calls, and there is no terminal" in err
    assert not (tmp_path / "proj" / "made").exists()


def test_a_rule_for_an_unknown_tool_is_refused(tmp_path: Path, xcsh_home: Path) -> None:
    code, _, err = run_steps(tmp_path, xcsh_home, [], '[approval]\nbahs = "deny"\n')
    assert code == 2 and "names the tool 'bahs', which this session does not have" in err
    assert "did you mean 'bash'?" in err


# a machine with neither Landlock nor user namespaces
NO_SANDBOX = {"XCSH_SANDBOX_ABI": "0", "XCSH_SANDBOX_NAMESPACES": "0"}


def test_require_without_landlock_refuses_bash_through_the_binary(
    tmp_path: Path, xcsh_home: Path
) -> None:
    calls = [{"name": "bash", "arguments": {"command": "touch made"}}]
    settings = 'sandbox = "require"\n'
    code, events, err = run_steps(tmp_path, xcsh_home, calls, settings, **NO_SANDBOX)
    assert code == 0, err
    (refused,) = results(events)
    assert refused[0] and refused[1].startswith('bash is refused: sandbox = "require"')
    assert not (tmp_path / "proj" / "made").exists()
    auto = 'sandbox = "auto"\n'
    code, events, err = run_steps(tmp_path, xcsh_home, calls, auto, **NO_SANDBOX)
    assert events[0]["notices"] == [
        "bash runs unconfined: XCSH_SANDBOX_ABI=0 in the environment turns Landlock off "
        '(sandbox = "auto"; set sandbox = "require" to refuse instead)'
    ]
    assert (tmp_path / "proj" / "made").exists()
