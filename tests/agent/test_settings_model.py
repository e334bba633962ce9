"""settings.toml is read once into one typed value; each part of xcsh gets its section,
and a bad value is refused with the same words wherever the file is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_xcsh
from xcsh.app import load_settings, open_checker
from xcsh.core import UsageError
from xcsh.journal import Retention

EVERY_SECTION = """\
max_tokens = 2048
max_forced_turns = 3
steering = "soft"
context_window = 64000
profile = "compact"
journal_max_entries = 7
sandbox = "off"
sandbox_network = false
check = "pytest -q"
check_when = "always"
strict_rules = true
index_memory = "64 MiB"

[approval]
bash = "ask"
"""


def test_each_part_gets_its_typed_section(xcsh_home: Path) -> None:
    (xcsh_home / "settings.toml").write_text(EVERY_SECTION)
    settings = load_settings(xcsh_home)
    assert settings.path == xcsh_home / "settings.toml"
    assert (settings.provider.max_tokens, settings.provider.model) == (2048, None)
    run = settings.run
    assert (run.max_forced_turns, run.steering, run.context_window, run.profile) == (
        3,
        "soft",
        64000,
        "compact",
    )
    assert settings.retention == Retention(max_entries=7)
    assert (settings.sandbox.mode, settings.sandbox.network) == ("off", False)
    assert (settings.checks.command, settings.checks.when) == ("pytest -q", "always")
    assert settings.approval.tools == {"bash": "ask"}
    assert settings.strict_rules is True
    assert settings.index_memory == 64 * 1024 * 1024
    # the checker takes the same sections: the check, and the sandbox's network
    checker = open_checker(xcsh_home, xcsh_home, settings)
    assert checker.settings.command == "pytest -q"


def test_no_file_gives_every_default(xcsh_home: Path) -> None:
    settings = load_settings(xcsh_home)
    assert settings.run.max_forced_turns == 5 and settings.run.profile == "auto"
    assert settings.retention == Retention()
    assert settings.sandbox.mode == "auto" and not settings.checks.configured
    assert settings.approval.empty and settings.strict_rules is False


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ('steering = "hard"', 'steering in {path} must be "forced" or "soft", not \'hard\''),
        ("max_forced_turns = 0", "max_forced_turns in {path} must be a whole number of at least 1"),
        ('profile = "tiny"', "profile in {path} must be one of 'auto', 'full', 'compact'"),
        ("journal_max_bytes = -1", "journal_max_bytes in {path} must be a number of bytes"),
        ("max_tokens = -5", "max_tokens in {path} must be a whole number above 0, not -5"),
        ('index_memory = "lots"', "index_memory in {path} must be a number of bytes"),
    ],
)
def test_a_bad_value_is_named_as_before(xcsh_home: Path, line: str, words: str) -> None:
    path = xcsh_home / "settings.toml"
    path.write_text(line + "\n")
    with pytest.raises(UsageError) as info:
        load_settings(xcsh_home)
    assert words.format(path=path) in str(info.value)


def test_scan_refuses_a_strict_rules_that_is_not_true_or_false(
    tmp_path: Path, xcsh_home: Path
) -> None:
    (xcsh_home / "settings.toml").write_text('strict_rules = "yes"\n')
    (tmp_path / "a.py").write_text("print(1)\n")
    rules = tmp_path / "rule.yml"
    rules.write_text("id: p\nlanguage: python\nrule:\n  pattern: print($A)\n")
    done = run_xcsh(["scan", "--rule", str(rules), "a.py"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 2
    settings = xcsh_home / "settings.toml"
    assert f"strict_rules in {settings} must be true or false, not 'yes'" in done.stderr
    assert "Hint: write strict_rules = true" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("line", "words", "hint"),
    [
        ("model = 5", "model in {path} must be a model name as text, not 5", 'model = "'),
        (
            "temperature = 5",
            "temperature in {path} must be a number from 0 to 2, not 5",
            "temperature = 0.2",
        ),
        (
            'max_tokens = "x"',
            "max_tokens in {path} must be a whole number above 0, not 'x'",
            "max_tokens = 8192",
        ),
        ('thinking = "yes"', "thinking in {path} must be true or false, not 'yes'", "thinking ="),
        (
            'provider = "antropic"',
            "provider in {path} must be one of 'anthropic', 'openai'",
            'provider = "anthropic"',
        ),
    ],
)
def test_a_bad_provider_value_names_the_file_the_key_and_a_line_to_write(
    tmp_path: Path, xcsh_home: Path, line: str, words: str, hint: str
) -> None:
    path = xcsh_home / "settings.toml"
    path.write_text(line + "\n")
    done = run_xcsh(
        ["-p", "hi", "--provider", "scripted", "--model", "steps.json"],
        cwd=tmp_path,
        home=xcsh_home,
    )
    assert done.returncode == 2
    first, second = done.stderr.splitlines()[:2]
    assert words.format(path=path) in first
    assert second.startswith("Hint: write for instance " + hint)
    assert "Input should" not in done.stderr and "$XCSH_HOME" not in done.stderr


@pytest.mark.parametrize(
    "line",
    [
        "max_forced_turns = 0",
        'steering = "hard"',
        'context_window = "big"',
        "profile = 5",
        'journal_max_entries = "x"',
        "journal_max_bytes = -1",
        'sandbox_network = "x"',
        'apply_requires_checks = "x"',
        "approval = 5",
        "[approval]\nrules = 5",
        "[[approval.rules]]\nprefix = ''\ndecision = 'allow'",
        "[[approval.rules]]\nprefix = 'git'\ndecision = 'allow'\nmatch = 'git'",
    ],
)
def test_every_bad_value_comes_with_a_hint_line(tmp_path: Path, xcsh_home: Path, line: str) -> None:
    path = xcsh_home / "settings.toml"
    path.write_text(line + "\n")
    done = run_xcsh(
        ["-p", "hi", "--provider", "scripted", "--model", "steps.json"],
        cwd=tmp_path,
        home=xcsh_home,
    )
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert str(path) in lines[0]
    assert len(lines) == 2 and lines[1].startswith("Hint: "), done.stderr


def test_a_mistyped_key_in_a_projects_settings_gets_a_close_match(
    tmp_path: Path, xcsh_home: Path
) -> None:
    (tmp_path / ".xcsh").mkdir()
    (tmp_path / ".xcsh" / "settings.toml").write_text('chek = "pytest -q"\n')
    assert run_xcsh(["trust"], cwd=tmp_path, home=xcsh_home).returncode == 0
    done = run_xcsh(["check"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 2
    assert "not 'chek' (did you mean 'check'?)" in done.stderr
    # as in the user's own settings
    (xcsh_home / "settings.toml").write_text('chek = "pytest -q"\n')
    done = run_xcsh(["check"], cwd=tmp_path, home=xcsh_home)
    assert "unknown setting 'chek' (did you mean 'check'?)" in done.stderr


def test_a_command_refuses_the_file_over_a_key_it_does_not_use_and_says_so(
    tmp_path: Path, xcsh_home: Path
) -> None:
    # xcsh sandbox check reads only the sandbox keys, but the file is checked whole,
    # as every command checks it: the message names the file and the key
    path = xcsh_home / "settings.toml"
    path.write_text('strict_rules = "x"\n')
    done = run_xcsh(["sandbox", "check"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"xcsh: strict_rules in {path} must be true or false, not 'x'",
        "Hint: write strict_rules = true (refuse rule files ast-grep would half-read)",
    ]
    path.write_text("strict_rules = true\n")
    assert run_xcsh(["sandbox", "check"], cwd=tmp_path, home=xcsh_home).returncode in (0, 1)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ('"99999999999999999999 GiB"', "'99999999999999999999 GiB'"),
        ('"1025 GiB"', "'1025 GiB'"),
        ("1099511627777", "1099511627777"),
    ],
)
def test_an_index_memory_above_one_tib_is_refused_with_a_hint(
    tmp_path: Path, xcsh_home: Path, value: str, shown: str
) -> None:
    path = xcsh_home / "settings.toml"
    path.write_text(f"index_memory = {value}\n")
    done = run_xcsh(["sandbox", "check"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"xcsh: index_memory in {path} must be at most 1 TiB (1024 GiB), not {shown}",
        'Hint: write for instance index_memory = "256 MiB"',
    ]


def test_an_index_memory_of_one_tib_is_taken(xcsh_home: Path) -> None:
    (xcsh_home / "settings.toml").write_text('index_memory = "1024 GiB"\n')
    assert load_settings(xcsh_home).index_memory == 1024**4


def test_the_provider_hints_name_the_settings_files_real_path(
    tmp_path: Path, xcsh_home: Path
) -> None:
    path = xcsh_home / "settings.toml"
    nothing = run_xcsh(["-p", "hi"], cwd=tmp_path, home=xcsh_home)
    assert nothing.returncode == 2
    assert nothing.stderr.startswith("xcsh: no model provider is configured\nHint: ")
    assert f"can also be set in {path}." in nothing.stderr
    no_key = run_xcsh(["-p", "hi", "--provider", "anthropic"], cwd=tmp_path, home=xcsh_home)
    assert no_key.returncode == 2
    assert f"Hint: Set ANTHROPIC_API_KEY (or api_key in {path})." in no_key.stderr
    assert "$XCSH_HOME" not in nothing.stderr + no_key.stderr
