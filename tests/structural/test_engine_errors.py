"""The engine's typed errors: the facts they carry, the model's wording, the command's.

The tools' text is the error's ``str()`` (compared literally elsewhere); the
commands word the same facts with their flags. A failed apply reaches the
command as facts too (``ResolveOutcome.failure``), never as text to rewrite.
"""

from __future__ import annotations

import asyncio
import copy
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from xcsh.cli.errors import COMMAND_WORDING
from xcsh.journal import ApplyError
from xcsh.pending import (
    ApplyFailure,
    PendingAction,
    PendingActionStore,
    ResolveOutcome,
    StalePreviewError,
    create_resolve_tool,
)
from xcsh.structural import MatchSpec, ScopeSpec, search
from xcsh.structural.base.errors import (
    EmptyScope,
    MissingPath,
    MixedLanguages,
    PatternMatchesNothing,
    ScanWorkerDied,
    UnknownNodeKind,
)


def test_an_unknown_node_kind_carries_its_facts_and_each_front_end_words_them(ws: Path) -> None:
    (ws / "a.py").write_text("isinstance(x, int)\n")
    what = MatchSpec(patterns=("isinstance($A, $B)",), selector="argument_lst")
    with pytest.raises(UnknownNodeKind) as info:
        search(what, ScopeSpec(root=ws))
    error = info.value
    assert (error.selector, error.language, error.close) == (
        "argument_lst",
        "python",
        ("argument_list",),
    )
    assert str(error).startswith(
        "`argument_lst` is not a python node kind, so `sel` cannot pick it."
    )
    assert "so --selector cannot pick it" in error.worded(COMMAND_WORDING)


def test_nothing_found_carries_the_doubt_and_the_command_names_its_flags(ws: Path) -> None:
    (ws / "a.go").write_text("package main\n\nfunc main() { fmt.Println(1) }\n")
    with pytest.raises(PatternMatchesNothing) as info:
        search(MatchSpec(patterns=("fmt.Println($$$ARGS)",)), ScopeSpec(root=ws))
    doubt = info.value.doubt
    assert (doubt.reason, doubt.own_kind, doubt.body_kind) == (
        "other-kind",
        "type_conversion_expression",
        "call_expression",
    )
    assert str(info.value).endswith(
        "for example pat `func t() { fmt.Println($$$ARGS) }` with sel `call_expression`."
    )
    assert info.value.worded(COMMAND_WORDING).endswith(
        "for example -p `func t() { fmt.Println($$$ARGS) }` with --selector `call_expression`."
    )


@pytest.mark.parametrize(
    "error",
    [
        EmptyScope("src"),
        MissingPath("src/x.py", "/ws"),
        MixedLanguages((("python", ("a.py",)), ("rust", ("b.rs", "c.rs")))),
        ScanWorkerDied("killed by signal 9 (SIGKILL)", ("a.py", "b.py")),
    ],
)
def test_errors_survive_a_copy_and_a_pickle_with_their_facts(error: Exception) -> None:
    for again in (copy.deepcopy(error), pickle.loads(pickle.dumps(error))):
        assert type(again) is type(error)
        assert vars(again) == vars(error)
        assert str(again) == str(error)


def test_a_scope_error_names_the_tool_parameters_or_the_command_flags() -> None:
    error = MixedLanguages((("python", ("a.py",)), ("rust", ("b.rs",))))
    assert str(error).endswith("pass `lang` to pick it, or narrow `path`/`glob`.")
    assert error.worded(COMMAND_WORDING).endswith(
        "pass -l/--lang to pick it, or narrow PATH/--globs."
    )


@pytest.mark.parametrize(
    ("failure", "stale", "new_content"),
    [
        (StalePreviewError("changed: a.py", files=("a.py",)), ("a.py",), ()),
        (ApplyError("write failed", new_content=["b.py"]), (), ("b.py",)),
        (RuntimeError("disk on fire"), (), ()),
    ],
)
def test_a_failed_apply_reports_its_facts_in_the_outcome(
    failure: Exception, stale: tuple[str, ...], new_content: tuple[str, ...]
) -> None:
    def apply(reason: str) -> None:
        raise failure

    store = PendingActionStore()
    store.push(PendingAction(label="edit", source_tool_name="t", apply=apply))
    result = asyncio.run(
        create_resolve_tool(store).execute("r", {"action": "apply", "reason": "go"})
    )
    outcome = result.details
    assert result.is_error and isinstance(outcome, ResolveOutcome)
    assert outcome.failure == ApplyFailure(
        message=str(failure), stale=stale, new_content=new_content
    )
    saved = ResolveOutcome.from_json(outcome.to_json())
    assert saved is not None and saved.failure == outcome.failure


def test_a_rule_error_keeps_its_yaml_keys_on_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("print(1)\n")
    (tmp_path / "r.yml").write_text(
        "id: r\nlanguage: python\nrule:\n  pattern: { selector: call }\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "xcsh", "ast-grep", "--rule", "r.yml", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "takes `context` (required), `selector` and `strictness`." in done.stderr
