"""Every bad value of settings.toml is refused in these words, whatever part reads it.

Each part of xcsh reads its keys of the file typed; a value of the wrong kind
is refused with a message naming the file, the key and the value, and a hint
line. The words are pinned here one by one (settings.toml's text, the problem,
the hint), and so is which problem a file with two is refused for.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from xcsh.app import load_settings
from xcsh.core import UsageError

WORDS = [
    (
        "max_forced_turns = 0",
        "max_forced_turns in {path} must be a whole number of at least 1, not 0",
        "write for instance max_forced_turns = 5",
    ),
    (
        "max_forced_turns = true",
        "max_forced_turns in {path} must be a whole number of at least 1, not True",
        "write for instance max_forced_turns = 5",
    ),
    (
        'max_forced_turns = "5"',
        "max_forced_turns in {path} must be a whole number of at least 1, not '5'",
        "write for instance max_forced_turns = 5",
    ),
    (
        "max_forced_turns = 2.5",
        "max_forced_turns in {path} must be a whole number of at least 1, not 2.5",
        "write for instance max_forced_turns = 5",
    ),
    (
        'steering = "hard"',
        'steering in {path} must be "forced" or "soft", not \'hard\'',
        'write for instance steering = "soft"',
    ),
    (
        "steering = 1",
        'steering in {path} must be "forced" or "soft", not 1',
        'write for instance steering = "soft"',
    ),
    (
        "context_window = 999",
        "context_window in {path} must be a whole number of tokens, at least 1000, not 999",
        "write for instance context_window = 128000",
    ),
    (
        'context_window = "big"',
        "context_window in {path} must be a whole number of tokens, at least 1000, not 'big'",
        "write for instance context_window = 128000",
    ),
    (
        "context_window = true",
        "context_window in {path} must be a whole number of tokens, at least 1000, not True",
        "write for instance context_window = 128000",
    ),
    (
        'profile = "tiny"',
        "profile in {path} must be one of 'auto', 'full', 'compact', not 'tiny'",
        'write for instance profile = "auto"',
    ),
    (
        "profile = 5",
        "profile in {path} must be one of 'auto', 'full', 'compact', not 5",
        'write for instance profile = "auto"',
    ),
    (
        "approval = 5",
        "{path}: approval must be a table ([approval]), not 5",
        'write an [approval] table with a line per tool, for example bash = "ask"',
    ),
    (
        'approval = "ask"',
        "{path}: approval must be a table ([approval]), not 'ask'",
        'write an [approval] table with a line per tool, for example bash = "ask"',
    ),
    (
        '[approval]\nbash = "maybe"',
        '{path}: approval.bash must be "allow", "ask" or "deny", not \'maybe\'',
        'for example bash = "ask"',
    ),
    (
        "[approval]\nwrite = 1",
        '{path}: approval.write must be "allow", "ask" or "deny", not 1',
        'for example bash = "ask"',
    ),
    (
        "[approval]\nrules = 5",
        "{path}: approval.rules must be a list of [[approval.rules]] tables",
        '[[approval.rules]] takes prefix = "git status" and decision = "allow"',
    ),
    (
        '[approval]\nrules = "x"',
        "{path}: approval.rules must be a list of [[approval.rules]] tables",
        '[[approval.rules]] takes prefix = "git status" and decision = "allow"',
    ),
    (
        "[approval]\nrules = [5]",
        "{path}: approval rule 1 must be a table with prefix and decision",
        '[[approval.rules]] takes prefix = "git status" and decision = "allow"',
    ),
    (
        "[[approval.rules]]\nprefix = 'ls'\ndecision = 'allow'\nmatches = ['ls']\nextra = 1",
        "{path}: approval rule 1: unknown key 'extra'",
        "a rule has prefix, decision, and optional match and not_match examples",
    ),
    (
        "[[approval.rules]]\ndecision = 'allow'",
        ('{path}: approval rule 1: prefix must be a non-empty command prefix such as "git status"'),
        '[[approval.rules]] takes prefix = "git status" and decision = "allow"',
    ),
    (
        "[[approval.rules]]\nprefix = ''\ndecision = 'allow'",
        ('{path}: approval rule 1: prefix must be a non-empty command prefix such as "git status"'),
        '[[approval.rules]] takes prefix = "git status" and decision = "allow"',
    ),
    (
        "[[approval.rules]]\nprefix = '  '\ndecision = 'allow'",
        ('{path}: approval rule 1: prefix must be a non-empty command prefix such as "git status"'),
        '[[approval.rules]] takes prefix = "git status" and decision = "allow"',
    ),
    (
        "[[approval.rules]]\nprefix = 5\ndecision = 'allow'",
        ('{path}: approval rule 1: prefix must be a non-empty command prefix such as "git status"'),
        '[[approval.rules]] takes prefix = "git status" and decision = "allow"',
    ),
    (
        "[[approval.rules]]\nprefix = \"git 'x\"\ndecision = 'allow'",
        (
            '{path}: approval rule 1: prefix "git \'x" cannot be split into words: No closing '
            "quotation"
        ),
        "close the quote, or escape it",
    ),
    (
        "[[approval.rules]]\nprefix = 'git'",
        '{path}: approval rule 1: decision must be "allow", "ask", "deny" or "preview", not None',
        'decision = "preview"',
    ),
    (
        "[[approval.rules]]\nprefix = 'git'\ndecision = 'maybe'",
        (
            '{path}: approval rule 1: decision must be "allow", "ask", "deny" or "preview", '
            "not 'maybe'"
        ),
        'decision = "preview"',
    ),
    (
        "[[approval.rules]]\nprefix = 'git'\ndecision = 'allow'\nmatch = 'git'",
        "{path}: approval rule 1 ('git'): match must be a list of example commands",
        'for example match = ["git status --short"]',
    ),
    (
        "[[approval.rules]]\nprefix = 'git'\ndecision = 'allow'\nnot_match = [1]",
        "{path}: approval rule 1 ('git'): not_match must be a list of example commands",
        'for example not_match = ["git status --short"]',
    ),
    (
        "[[approval.rules]]\nprefix = 'git'\ndecision = 'allow'\nmatch = [\"git 'x\"]",
        (
            "{path}: approval rule 1 ('git'): example \"git 'x\" cannot be parsed: it is not "
            "valid bash (unbalanced quotes or brackets?)"
        ),
        "close the quote, or escape it",
    ),
    (
        "[[approval.rules]]\nprefix = 'git'\ndecision = 'allow'\nnot_match = ['git push']",
        (
            "{path}: approval rule 1 ('git'): the example 'git push' matches the rule, but is "
            "listed in not_match"
        ),
        "fix the prefix or the example",
    ),
    (
        "[[approval.rules]]\nprefix = 'rm -r'\ndecision = 'ask'\nmatch = ['rm -f x']",
        (
            "{path}: approval rule 1 ('rm -r'): the example 'rm -f x' does not match the rule, "
            "but is listed in match"
        ),
        "fix the prefix or the example",
    ),
    (
        (
            "[[approval.rules]]\nprefix = 'ls'\ndecision = 'allow'\n[[approval.rules]]\nprefix = "
            "''\ndecision = 'allow'"
        ),
        ('{path}: approval rule 2: prefix must be a non-empty command prefix such as "git status"'),
        '[[approval.rules]] takes prefix = "git status" and decision = "allow"',
    ),
    (
        'sandbox = "maybe"',
        "{path}: sandbox must be one of 'auto', 'require', 'off', not 'maybe'",
        'sandbox = "auto" confines bash when the kernel allows it',
    ),
    (
        "sandbox = true",
        "{path}: sandbox must be one of 'auto', 'require', 'off', not True",
        'sandbox = "auto" confines bash when the kernel allows it',
    ),
    (
        'sandbox_network = "x"',
        "{path}: sandbox_network must be true or false, not 'x'",
        "sandbox_network = true lets bash and the check reach the network",
    ),
    (
        "sandbox_network = 1",
        "{path}: sandbox_network must be true or false, not 1",
        "sandbox_network = true lets bash and the check reach the network",
    ),
    (
        'sandbox_write = "~/.cache"',
        "{path}: sandbox_write must be a list of paths, not '~/.cache'",
        'for example sandbox_write = ["~/.cache"]',
    ),
    (
        "sandbox_write = [1]",
        "{path}: sandbox_write must be a list of paths, not [1]",
        'for example sandbox_write = ["~/.cache"]',
    ),
    (
        'sandbox_write = ["relative/path"]',
        "{path}: sandbox_write path 'relative/path' is relative",
        "give an absolute path or one starting with ~",
    ),
    (
        'sandbox_write = ["/no/such/place/xcsh"]',
        "{path}: sandbox_write path '/no/such/place/xcsh' does not exist",
        "create it (mkdir -p /no/such/place/xcsh) or remove it from sandbox_write",
    ),
    (
        "bash_env = 5",
        "{path}: bash_env must be a table, not 5",
        ('[bash_env] takes inherit = "safe" | "all" | "none", include = [...], exclude = [...]'),
    ),
    (
        '[bash_env]\ninherit = "some"',
        "{path}: bash_env.inherit must be one of 'safe', 'all', 'none', not 'some'",
        ('[bash_env] takes inherit = "safe" | "all" | "none", include = [...], exclude = [...]'),
    ),
    (
        "[bash_env]\nfoo = 1\nbar = 2",
        "{path}: unknown key bash_env.bar",
        ('[bash_env] takes inherit = "safe" | "all" | "none", include = [...], exclude = [...]'),
    ),
    (
        '[bash_env]\ninclude = "X"',
        "{path}: bash_env.include must be a list of variable names, not 'X'",
        'for example include = ["GITHUB_TOKEN"] (glob patterns such as "AWS_*" work)',
    ),
    (
        '[bash_env]\nexclude = [""]',
        "{path}: bash_env.exclude must be a list of variable names, not ['']",
        'for example include = ["GITHUB_TOKEN"] (glob patterns such as "AWS_*" work)',
    ),
    (
        "[bash_env]\ninclude = [1]",
        "{path}: bash_env.include must be a list of variable names, not [1]",
        'for example include = ["GITHUB_TOKEN"] (glob patterns such as "AWS_*" work)',
    ),
    (
        'check = ""',
        "{path}: check must be a command line, not ''",
        'for example check = "pytest -x -q"',
    ),
    (
        'check = "  "',
        "{path}: check must be a command line, not '  '",
        'for example check = "pytest -x -q"',
    ),
    (
        "check = 5",
        "{path}: check must be a command line, not 5",
        'for example check = "pytest -x -q"',
    ),
    (
        'check = "pytest \'x"',
        '{path}: check "pytest \'x" is not a valid command line: No closing quotation',
        "close the quote, or escape it",
    ),
    (
        "check_timeout = 0",
        "{path}: check_timeout must be a number of seconds above 0, not 0",
        "for example check_timeout = 300",
    ),
    (
        "check_timeout = -1",
        "{path}: check_timeout must be a number of seconds above 0, not -1",
        "for example check_timeout = 300",
    ),
    (
        'check_timeout = "x"',
        "{path}: check_timeout must be a number of seconds above 0, not 'x'",
        "for example check_timeout = 300",
    ),
    (
        "check_timeout = true",
        "{path}: check_timeout must be a number of seconds above 0, not True",
        "for example check_timeout = 300",
    ),
    (
        "check_timeout = nan",
        "{path}: check_timeout must be a number of seconds above 0, not nan",
        "for example check_timeout = 300",
    ),
    (
        "check_timeout = inf",
        "{path}: check_timeout must be a number of seconds above 0, not inf",
        "for example check_timeout = 300",
    ),
    (
        'check_when = "sometimes"',
        "{path}: check_when must be 'asked' or 'always', not 'sometimes'",
        'check_when = "always" checks every preview; "asked" only when a call asks',
    ),
    (
        "check_when = 1",
        "{path}: check_when must be 'asked' or 'always', not 1",
        'check_when = "always" checks every preview; "asked" only when a call asks',
    ),
    (
        'apply_requires_checks = "yes"',
        "{path}: apply_requires_checks must be true or false, not 'yes'",
        "apply_requires_checks = true asks before applying a preview whose check failed",
    ),
    (
        "apply_requires_checks = 1",
        "{path}: apply_requires_checks must be true or false, not 1",
        "apply_requires_checks = true asks before applying a preview whose check failed",
    ),
    (
        'strict_rules = "yes"',
        "strict_rules in {path} must be true or false, not 'yes'",
        "write strict_rules = true (refuse rule files ast-grep would half-read)",
    ),
    (
        "strict_rules = 1",
        "strict_rules in {path} must be true or false, not 1",
        "write strict_rules = true (refuse rule files ast-grep would half-read)",
    ),
    (
        'index_memory = "lots"',
        (
            'index_memory in {path} must be a number of bytes or a size such as "256 MiB" (KiB, '
            "MiB, GiB; 0 keeps no trees), not 'lots'"
        ),
        'write for instance index_memory = "256 MiB"',
    ),
    (
        "index_memory = true",
        (
            'index_memory in {path} must be a number of bytes or a size such as "256 MiB" (KiB, '
            "MiB, GiB; 0 keeps no trees), not True"
        ),
        'write for instance index_memory = "256 MiB"',
    ),
    (
        "index_memory = -1",
        (
            'index_memory in {path} must be a number of bytes or a size such as "256 MiB" (KiB, '
            "MiB, GiB; 0 keeps no trees), not -1"
        ),
        'write for instance index_memory = "256 MiB"',
    ),
    (
        'index_memory = "2048 GiB"',
        "index_memory in {path} must be at most 1 TiB (1024 GiB), not '2048 GiB'",
        'write for instance index_memory = "256 MiB"',
    ),
    (
        "index_memory = [1]",
        (
            'index_memory in {path} must be a number of bytes or a size such as "256 MiB" (KiB, '
            "MiB, GiB; 0 keeps no trees), not [1]"
        ),
        'write for instance index_memory = "256 MiB"',
    ),
    (
        "journal_max_entries = -1",
        "journal_max_entries in {path} must be a whole number (0 for no limit), not -1",
        "write for instance journal_max_entries = 200",
    ),
    (
        'journal_max_entries = "x"',
        "journal_max_entries in {path} must be a whole number (0 for no limit), not 'x'",
        "write for instance journal_max_entries = 200",
    ),
    (
        "journal_max_bytes = true",
        'journal_max_bytes in {path} must be a number of bytes or a size such as "512 MiB" '
        "(KiB, MiB, GiB; 0 for no limit), not True",
        'write for instance journal_max_bytes = "512 MiB"',
    ),
    (
        "journal_max_bytes = 1.5",
        'journal_max_bytes in {path} must be a number of bytes or a size such as "512 MiB" '
        "(KiB, MiB, GiB; 0 for no limit), not 1.5",
        'write for instance journal_max_bytes = "512 MiB"',
    ),
]
FIRST = [
    (
        "max_forced_turns = 0\nprofile = 'x'",
        "max_forced_turns in {path} must be a whole number of at least 1, not 0",
        "write for instance max_forced_turns = 5",
    ),
    (
        "steering = 'x'\ncontext_window = 5",
        'steering in {path} must be "forced" or "soft", not \'x\'',
        'write for instance steering = "soft"',
    ),
    (
        "[approval]\nrules = 5\nbash = 'maybe'",
        '{path}: approval.bash must be "allow", "ask" or "deny", not \'maybe\'',
        'for example bash = "ask"',
    ),
    (
        "[approval]\nbash = 'maybe'\nwrite = 'nope'",
        '{path}: approval.bash must be "allow", "ask" or "deny", not \'maybe\'',
        'for example bash = "ask"',
    ),
    (
        "[[approval.rules]]\nprefix = ''\ndecision = 'x'",
        ('{path}: approval rule 1: prefix must be a non-empty command prefix such as "git status"'),
        '[[approval.rules]] takes prefix = "git status" and decision = "allow"',
    ),
    (
        "[[approval.rules]]\nprefix = ''\ndecision = 'allow'\nmatches = 1",
        "{path}: approval rule 1: unknown key 'matches'",
        "a rule has prefix, decision, and optional match and not_match examples",
    ),
    (
        (
            "[[approval.rules]]\nprefix = 'ls'\ndecision = 'allow'\nmatch = "
            "'x'\n[[approval.rules]]\nprefix = ''"
        ),
        ('{path}: approval rule 2: prefix must be a non-empty command prefix such as "git status"'),
        '[[approval.rules]] takes prefix = "git status" and decision = "allow"',
    ),
    (
        "[[approval.rules]]\nprefix = 'ls'\ndecision = 'allow'\nmatch = 'x'\nnot_match = 'y'",
        "{path}: approval rule 1 ('ls'): match must be a list of example commands",
        'for example match = ["git status --short"]',
    ),
    (
        "sandbox = 'x'\nsandbox_network = 'y'",
        "{path}: sandbox must be one of 'auto', 'require', 'off', not 'x'",
        'sandbox = "auto" confines bash when the kernel allows it',
    ),
    (
        "sandbox_write = 5\nbash_env = 5",
        "{path}: sandbox_write must be a list of paths, not 5",
        'for example sandbox_write = ["~/.cache"]',
    ),
    (
        "[bash_env]\ninherit = 'x'\nfoo = 1",
        "{path}: unknown key bash_env.foo",
        ('[bash_env] takes inherit = "safe" | "all" | "none", include = [...], exclude = [...]'),
    ),
    (
        "[bash_env]\ninclude = 'x'\nexclude = 'y'",
        "{path}: bash_env.include must be a list of variable names, not 'x'",
        'for example include = ["GITHUB_TOKEN"] (glob patterns such as "AWS_*" work)',
    ),
    (
        "check = ''\ncheck_timeout = 0",
        "{path}: check must be a command line, not ''",
        'for example check = "pytest -x -q"',
    ),
    (
        "check_when = 'x'\napply_requires_checks = 'y'",
        "{path}: check_when must be 'asked' or 'always', not 'x'",
        'check_when = "always" checks every preview; "asked" only when a call asks',
    ),
    (
        "check_timeout = 0\ncheck_when = 'x'",
        "{path}: check_timeout must be a number of seconds above 0, not 0",
        "for example check_timeout = 300",
    ),
    (
        "strict_rules = 'x'\nindex_memory = 'y'",
        "strict_rules in {path} must be true or false, not 'x'",
        "write strict_rules = true (refuse rule files ast-grep would half-read)",
    ),
    (
        "journal_max_entries = -1\njournal_max_bytes = -1",
        "journal_max_entries in {path} must be a whole number (0 for no limit), not -1",
        "write for instance journal_max_entries = 200",
    ),
    (
        "max_tokens = 0\nmax_forced_turns = 0",
        "max_tokens in {path} must be a whole number above 0, not 0",
        "write for instance max_tokens = 8192",
    ),
    (
        "max_forced_turns = 0\napproval = 5",
        "max_forced_turns in {path} must be a whole number of at least 1, not 0",
        "write for instance max_forced_turns = 5",
    ),
    (
        "approval = 5\nsandbox = 'x'",
        "{path}: approval must be a table ([approval]), not 5",
        'write an [approval] table with a line per tool, for example bash = "ask"',
    ),
    (
        "sandbox = 'x'\njournal_max_entries = -1",
        "{path}: sandbox must be one of 'auto', 'require', 'off', not 'x'",
        'sandbox = "auto" confines bash when the kernel allows it',
    ),
    (
        "journal_max_entries = -1\ncheck = ''",
        "journal_max_entries in {path} must be a whole number (0 for no limit), not -1",
        "write for instance journal_max_entries = 200",
    ),
    (
        "check = ''\nstrict_rules = 'x'",
        "{path}: check must be a command line, not ''",
        'for example check = "pytest -x -q"',
    ),
]


def refusal(home: Path, text: str) -> str:
    (home / "settings.toml").write_text(text + "\n")
    with pytest.raises(UsageError) as info:
        load_settings(home)
    return str(info.value)


@pytest.mark.parametrize(("text", "problem", "hint"), WORDS)
def test_each_bad_value_is_refused_in_these_words(
    xcsh_home: Path, text: str, problem: str, hint: str
) -> None:
    path = xcsh_home / "settings.toml"
    assert refusal(xcsh_home, text) == f"{problem.format(path=path)}\nHint: {hint}"


@pytest.mark.parametrize(("text", "problem", "hint"), FIRST)
def test_of_two_bad_values_the_first_read_is_named(
    xcsh_home: Path, text: str, problem: str, hint: str
) -> None:
    path = xcsh_home / "settings.toml"
    assert refusal(xcsh_home, text) == f"{problem.format(path=path)}\nHint: {hint}"
