"""Typed tool details: one JSON adapter each way, and the key reads tool authors rely on."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from xcsh.agent.record.persistence import message_from_dict, message_to_dict
from xcsh.core import TextContent, ToolResultMessage
from xcsh.pending import Preview, PreviewChange, PreviewFile, ResolveOutcome
from xcsh.structural.tools.details import AstEditDetails, LeftOutFile
from xcsh.tools.coding.details import BashDetails


def _outcome() -> ResolveOutcome:
    change = PreviewChange(id="c1", file="a.py", line=1, column=1, old="print(x)", new="log(x)")
    return ResolveOutcome(
        action="apply",
        reason="ok",
        source_tool_name="ast_edit",
        label="AST Edit: 1 replacement in 1 file",
        status="applied",
        preview_id="p1",
        applied=(change,),
    )


def test_resolve_outcome_reads_by_key_as_the_four_key_contract_and_keeps_every_field() -> None:
    outcome = _outcome()
    assert outcome == {
        "action": "apply",
        "reason": "ok",
        "source_tool_name": "ast_edit",
        "label": "AST Edit: 1 replacement in 1 file",
    }
    assert outcome["label"] == "AST Edit: 1 replacement in 1 file" and len(outcome) == 4
    assert dataclasses.replace(outcome, status="declined").contract()["declined"] is True
    again = ResolveOutcome.from_json(json.loads(json.dumps(outcome.to_json())))
    assert again == outcome and again is not None and again.applied[0].id == "c1"
    assert again != dataclasses.replace(outcome, preview_id="p2")


def test_a_session_file_round_trip_gives_back_the_typed_details(tmp_path: Path) -> None:
    preview = Preview(
        id="p1",
        files=(PreviewFile(path="a.py", diff="-x\n+y\n", changes=("c1",)),),
        changes=(PreviewChange(id="c1", file="a.py", line=1, column=1, old="x", new="y"),),
        diff="-x\n+y\n",
    )
    cases = {
        "ast_edit": AstEditDetails(
            preview=preview,
            label="AST Edit: 1 replacement in 1 file",
            total=1,
            skipped=(LeftOutFile(file="b.bin", reason="binary"),),
            notes=("Skipped 1 file: b.bin (binary).",),
            arguments={"ops": [{"pat": "x", "out": "y"}]},
        ),
        "bash": BashDetails(command="true", exit_code=0, seconds=0.01, output_bytes=0),
        "resolve": _outcome(),
    }
    for tool_name, details in cases.items():
        message = ToolResultMessage(
            tool_call_id="call_1", tool_name=tool_name, content=[TextContent("ok")], details=details
        )
        line = json.dumps(message_to_dict(message))
        back = message_from_dict(json.loads(line))
        assert isinstance(back, ToolResultMessage)
        assert type(back.details) is type(details) and back.details == details


def test_details_of_another_shape_stay_as_they_were_saved() -> None:
    for tool_name, details in [
        ("ast_edit", {"gated": True}),
        ("ast_edit", {"arguments": {}, "id": "p1", "label": "L", "total": 1, "files": []}),
        ("bash", {"cancelled": True}),
        ("my_tool", {"anything": [1, 2]}),
    ]:
        data = {
            "role": "tool_result",
            "tool_call_id": "call_1",
            "tool_name": tool_name,
            "content": [],
            "details": details,
        }
        back = message_from_dict(data)
        assert isinstance(back, ToolResultMessage) and back.details == details
        assert type(back.details) is dict


def test_ast_edit_details_read_by_key_as_the_dict_of_earlier_versions() -> None:
    empty = AstEditDetails(skipped=(LeftOutFile(file="b.bin", reason="binary"),))
    assert empty == {
        "total": 0,
        "files": [],
        "diff": "",
        "skipped": [{"file": "b.bin", "reason": "binary"}],
    }
