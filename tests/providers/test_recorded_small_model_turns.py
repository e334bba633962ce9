"""Turns a small local model got wrong, replayed to the installed ``xcsh -p``.

Each fixture in ``fixtures/recorded/`` is a failed run of ``make e2e-model``
(Qwen2.5 1.5B Q4_K_M on llama.cpp's ``llama-server``, the compact profile): the
model's answers, byte for byte, served back by a loopback server. The tests check
what xcsh now sends the model after those answers.
"""

from __future__ import annotations

from pathlib import Path

from provider_support import of, replay

from xcsh.agent.run.compact_notes import READ_EDIT_NOTE


def test_a_resolve_before_any_preview_makes_the_next_turn_call_another_tool(
    tmp_path: Path, xcsh_home: Path
) -> None:
    # Asked to preview a rename and discard it, the model called resolve first, then
    # wrote the refusal's advice back as its answer. Now the refusal is followed by a
    # reminder quoting the request, and the next turn must call a tool: any but
    # resolve (the response_format schema leaves it out; the tool list is the same).
    (tmp_path / "m.py").write_text("def parse_duration(text):\n    return text\n")
    prompt = (
        "Preview renaming the function `parse_duration` to `read_duration` with ast_edit. "
        "We decided not to make this change: discard the preview with a reason."
    )
    events, server = replay("resolve-before-preview", prompt, tmp_path, xcsh_home)
    assert [s["name"] for s in of(events, "tool_call_start")] == ["resolve"]
    first, second = server.requests
    assert second["tools"] == first["tools"] and second["tool_choice"] == "required"
    branches = second["response_format"]["json_schema"]["schema"]["oneOf"]
    allowed = {b["properties"]["name"]["const"] for b in branches}
    assert "ast_edit" in allowed and "resolve" not in allowed
    refused, reminder = second["messages"][-2:]
    assert refused["role"] == "tool" and "call ast_edit first" in refused["content"]
    assert reminder["role"] == "user"
    assert reminder["content"].startswith(f'The request was: "{prompt}"')


def test_a_grep_with_an_empty_glob_searches_every_file(tmp_path: Path, xcsh_home: Path) -> None:
    # The model filled in `glob: ""`, was refused ("The glob is empty."), and answered
    # with advice on how to search. An empty glob is now no glob.
    (tmp_path / "parse.py").write_text(
        "def extract_format(text):\n    return text\n\n\n"
        "def _handle_field(field):\n    return extract_format(field)\n"
    )
    prompt = (
        "Which functions in this project (tests aside) call the function `extract_format`? "
        "Search the code, then answer with the names of the calling functions."
    )
    events, server = replay("grep-empty-glob", prompt, tmp_path, xcsh_home)
    (start,) = of(events, "tool_call_start")
    assert start["name"] == "grep" and start["arguments"]["glob"] == ""
    result = server.requests[1]["messages"][-1]
    assert result["role"] == "tool"
    assert "parse.py:1:" in result["content"] and "parse.py:6:" in result["content"]
    assert not of(events, "tool_result")[0]["message"]["is_error"]


def test_a_read_result_ends_with_how_to_change_a_line_with_edit(
    tmp_path: Path, xcsh_home: Path
) -> None:
    # Asked to read a file, then change one line with `edit`, the model read it and
    # wrote an ast_edit pattern `%C`, which does not parse. The read result now ends
    # with how to call `edit`.
    folder = tmp_path / "src" / "isodate"
    folder.mkdir(parents=True)
    (folder / "isostrf.py").write_text('DATE_CENTURY = "%C"\nD_DEFAULT = "P%P"\n')
    prompt = (
        "Read src/isodate/isostrf.py, then use the edit tool to change DATE_CENTURY from "
        '"%C" to "%y". Change nothing else.'
    )
    events, server = replay("read-then-pattern-edit", prompt, tmp_path, xcsh_home)
    assert of(events, "tool_call_start")[0]["name"] == "read"
    result = server.requests[1]["messages"][-1]
    assert result["role"] == "tool" and 'DATE_CENTURY = "%C"' in result["content"]
    assert result["content"].endswith("\n" + READ_EDIT_NOTE)
