"""``make e2e-model``'s own logic, without building or serving anything: where and when
``llama-server`` is built, and which failures it calls xcsh's."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from model_e2e import parts
from model_e2e.answers import contradiction
from model_e2e.record import server_timings
from model_e2e.runner import Event, RunLog, offered_by_turn, xcsh_failure
from model_e2e.tasks import RENAMES, Context
from model_e2e.tasks_wide import answered_names


class Builds:
    """Stands in for ``subprocess.run`` in :mod:`model_e2e.parts`: records each command
    and, for a build, leaves the binary where CMake would."""

    def __init__(self) -> None:
        self.commands: list[list[str]] = []

    def __call__(self, command: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        self.commands.append(command)
        if command[:2] == ["cmake", "--build"]:
            binary = Path(command[2]) / "bin" / "llama-server"
            binary.parent.mkdir(parents=True, exist_ok=True)
            binary.write_text("")
            binary.chmod(0o755)
        return subprocess.CompletedProcess(command, 0, "", "")


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> Builds:
    fake = Builds()
    monkeypatch.setattr(parts.subprocess, "run", fake)
    monkeypatch.setattr(parts, "log", lambda message: None)
    return fake


def unpacked_source(cache: Path) -> Path:
    """A cache whose llama.cpp source is already unpacked (no download, no archive)."""
    source = cache / "llama.cpp" / parts.LLAMA_CPP_VERSION / "src"
    source.mkdir(parents=True)
    (source / "CMakeLists.txt").write_text("project(llama.cpp)\n")
    return source


def test_a_cache_reached_through_a_symlink_is_built_under_its_real_path(
    tmp_path: Path, builds: Builds
) -> None:
    real = tmp_path / "real-cache"
    source = unpacked_source(real)
    link = tmp_path / "cache-link"
    link.symlink_to(real)
    binary = parts.llama_server(link)
    configure, build = builds.commands
    assert configure[:5] == ["cmake", "-S", str(source), "-B", str(source.parent / "build")]
    assert build[:3] == ["cmake", "--build", str(source.parent / "build")]
    assert binary == source.parent / "build" / "bin" / "llama-server"
    assert str(link) not in json.dumps(builds.commands)


def test_a_second_run_neither_configures_nor_builds_again(tmp_path: Path, builds: Builds) -> None:
    unpacked_source(tmp_path)
    first = parts.llama_server(tmp_path)
    builds.commands.clear()
    assert parts.llama_server(tmp_path) == first
    assert builds.commands == []


def test_an_interrupted_build_resumes_without_configuring_again(
    tmp_path: Path, builds: Builds
) -> None:
    source = unpacked_source(tmp_path)
    build = source.parent / "build"
    build.mkdir()
    (build / "build.ninja").write_text("")
    (build / "CMakeCache.txt").write_text(f"CMAKE_HOME_DIRECTORY:INTERNAL={source}\n")
    parts.llama_server(tmp_path)
    assert [c[:2] for c in builds.commands] == [["cmake", "--build"]]


def test_a_build_folder_configured_for_another_source_is_configured_again(
    tmp_path: Path, builds: Builds
) -> None:
    source = unpacked_source(tmp_path)
    build = source.parent / "build"
    build.mkdir()
    (build / "build.ninja").write_text("")
    (build / "CMakeCache.txt").write_text("CMAKE_HOME_DIRECTORY:INTERNAL=/elsewhere/src\n")
    parts.llama_server(tmp_path)
    assert [c[:2] for c in builds.commands] == [["cmake", "-S"], ["cmake", "--build"]]


def answer_turn(text: str) -> Event:
    return Event(1.0, {"type": "turn_end", "message": {"content": [{"text": text}]}})


def test_a_call_written_as_text_is_xcsh_s_failure_only_when_that_turn_offered_the_tool(
    tmp_path: Path,
) -> None:
    exchange = tmp_path / "run.jsonl"
    offered = [["ls", "ast_edit"], ["ls", "ast_edit", "resolve"]]
    records = [{"status": 400, "request": {"tools": []}}]  # a refused schema is no turn
    records += [
        {"status": 200, "request": {"tools": [{"function": {"name": n}} for n in names]}}
        for names in offered
    ]
    exchange.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert offered_by_turn(exchange) == offered
    resolve = '```json\n{"name": "resolve", "arguments": {"action": "apply", "reason": "ok"}}\n```'
    first = RunLog(events=[answer_turn(resolve)])
    assert xcsh_failure(first, offered, ["resolve"]) is None  # not offered: the model's
    second = RunLog(events=[answer_turn("thinking"), answer_turn(resolve)])
    failure = xcsh_failure(second, offered, [])
    assert failure is not None and failure.startswith("call written as text not run")


def test_the_server_s_timings_are_read_per_answered_request_from_the_recording() -> None:
    # A recorded rename: the server's own count of cached and new prompt tokens per turn.
    recording = Path(__file__).parents[1] / "providers/fixtures/recorded/rename-forced-apply.jsonl"
    records = [json.loads(line) for line in recording.read_text().splitlines()]
    timings = server_timings(recording)
    assert len(timings) == sum(r["status"] == 200 for r in records) >= 2
    first = timings[0]
    usage = next(
        json.loads(line[6:])["usage"]
        for line in records[0]["response"].splitlines()
        if '"usage"' in line
    )
    assert first.cache_n + first.prompt_n == usage["prompt_tokens"] and first.prompt_ms > 0
    assert server_timings(Path("/nonexistent.jsonl")) == []


def test_runs_of_one_task_each_get_another_rename_of_a_function_the_package_defines() -> None:
    renames = [Context(Path("."), Path("."), "", 1.0, run=i).rename for i in range(len(RENAMES))]
    assert len({r.old for r in renames}) == len(renames) == len({r.new for r in renames})
    assert Context(Path("."), Path("."), "", 1.0, run=len(RENAMES)).rename == renames[0]
    assert renames[0].prompt().startswith("Rename the function `ordinal` to `ordinal_suffix`")


def _run(answer: str, *events: dict[str, Any], pending: int = 0) -> RunLog:
    end = {"type": "run_end", "final_text": answer, "pending": pending}
    return RunLog(events=[Event(at=0.0, data=e) for e in (*events, end)])


APPLY = {"type": "resolved", "action": "apply", "is_error": False}


def test_an_answer_contradicts_the_run_when_it_says_what_the_events_deny() -> None:
    # After the apply, Qwen2.5 1.5B told the user how to apply the change.
    told = "To apply the changes, use the `resolve` tool with the `only` parameter."
    assert contradiction(_run(told, APPLY)).startswith("says something is left to do")
    assert contradiction(_run("Renamed `a` to `b` in a.py.", APPLY)) == ""
    # what the note after the apply says, repeated, is the truth
    truth = "The changes are written to disk and nothing is pending. No changes are pending."
    assert contradiction(_run(truth, APPLY)) == ""
    # nothing was written, yet the answer claims a change
    said = contradiction(_run("The function has been renamed."))
    assert said.startswith("claims a change nothing wrote")
    assert contradiction(_run("The preview was discarded, as asked.")) == ""
    # an edit that worked counts as written; one that failed does not
    call = {"type": "tool_call_start", "id": "c1", "name": "edit"}
    done = {"type": "tool_result", "message": {"tool_call_id": "c1", "is_error": False}}
    failed = {"type": "tool_result", "message": {"tool_call_id": "c1", "is_error": True}}
    assert contradiction(_run("I have updated the version.", call, done)) == ""
    assert contradiction(_run("I have updated the version.", call, failed)) != ""
    assert contradiction(_run("Nothing was changed.", call, done)).startswith("says nothing")
    # something still pending: telling the user to resolve it is the truth
    assert contradiction(_run("Call resolve to apply it.", APPLY, pending=1)) == ""


def test_a_search_answer_is_read_for_function_names_not_file_names() -> None:
    # The parse package defines functions `parse` and `search`, and its module is parse.py:
    # an answer naming the caller, its file and "the search results" names one function.
    defined = {"parse", "search", "_handle_field", "extract_format"}
    answer = "`extract_format` is called in parse.py:745 (in _handle_field)."
    assert answered_names(answer, defined, "extract_format") == {"_handle_field"}
    assert answered_names("See src/parse/parse.py and /w/parse, then parse()", defined) == {"parse"}
    said = "The search results say `extract_format` is called in the `_handle_field` function."
    assert answered_names(said, defined, "extract_format") == {"_handle_field"}
    # names not written as code count when none is
    assert answered_names("It is called by _handle_field and search.", defined) == {
        "_handle_field",
        "search",
    }
