"""What opening a session did, as the terminal greets with it and print mode says it.

Both front ends say it from one module (``xcsh.ui.opening``); these pin the
lines each shows, in order, for a session that has something to say on every count.
"""

from __future__ import annotations

import io
import types
from pathlib import Path

from xcsh.agent import Instructions, ResumeReport
from xcsh.agent.run.instructions import InstructionFile
from xcsh.app import OpenedSession
from xcsh.core import AssistantMessage, TextContent, ToolCall, UserMessage
from xcsh.journal import OpenedJournal
from xcsh.pending import RebuiltPreview
from xcsh.plugins.results import LoadError
from xcsh.ui import TerminalStyle, make_console
from xcsh.ui.opening import opening_header, show_greeting, show_print_opening

PLAIN = TerminalStyle(color=False, unicode=False)


class _Recovered:
    message = "Rolled back 'AST Edit: 1 replacement in 1 file': restored a.py."


def _opened() -> OpenedSession:
    session = types.SimpleNamespace(
        id="s-1",
        cwd=Path("/work/app"),
        messages=[
            UserMessage(content=[TextContent("rename hello")]),
            AssistantMessage(content=[ToolCall(id="c1", name="ast_edit", arguments={})]),
        ],
    )
    rebuilt = RebuiltPreview(
        label="AST Edit: 2 replacements in 1 file",
        previous_label="AST Edit: 1 replacement in 1 file",
        source_tool_name="ast_edit",
        preview="-hello(1)\n+greet(1)\n",
        changes=["one more replacement"],
    )
    return OpenedSession(
        session=session,  # type: ignore[arg-type]
        path=Path("/home/.xcsh/sessions/s-1.jsonl"),
        resumed=ResumeReport(
            repreviewed=[rebuilt.label], dropped=["Edit: gone"], rebuilt=[rebuilt]
        ),
        load_errors=[LoadError(path="/t/bad.py", error="SyntaxError", source="user")],
        journal=OpenedJournal(
            journal=None,  # type: ignore[arg-type]
            recovered=[_Recovered()],  # type: ignore[list-item]
            problem="locked",
        ),
        instructions=Instructions(
            text="t", files=(InstructionFile(path=Path("/work/app/AGENTS.md"), chars=5, total=5),)
        ),
        notices=("bash runs unconfined",),
        elsewhere=Path("/elsewhere"),
    )


def _lines(show: object) -> list[str]:
    out = io.StringIO()
    show(make_console(out, PLAIN))  # type: ignore[operator]
    return out.getvalue().splitlines()


ELSEWHERE = (
    "session s-1 works in /work/app, the folder it was started in "
    "(not the current folder /elsewhere)"
)


PREVIEW = [
    "* Preview: AST Edit: 2 replacements in 1 file",
    "-hello(1)",
    "+greet(1)",
    "  pending: apply or discard to continue",
    "This preview differs from the one left pending: one more replacement. "
    "Review its diff before applying it.",
]


def test_the_terminal_greets_with_every_fact_in_its_order() -> None:
    opened = _opened()
    assert _lines(lambda console: show_greeting(console, PLAIN, opened)) == [
        "S" + ELSEWHERE[1:] + ".",
        "Resumed session s-1 (2 messages).",
        "  you: rename hello",
        "  model: (called ast_edit)",
        "re-previewed against the current files (was: AST Edit: 1 replacement in 1 file):",
        *PREVIEW,
        "dropped: Edit: gone",
        "custom tools: /t/bad.py: SyntaxError",
        _Recovered.message,
        "undo journal: locked",
        "bash runs unconfined",
    ]


def test_print_mode_says_the_same_facts_in_its_own_words() -> None:
    opened = _opened()
    json_lines = _lines(lambda console: show_print_opening(console, PLAIN, opened, progress=False))
    assert json_lines == [
        _Recovered.message,
        "undo journal: locked",
        f"xcsh: {ELSEWHERE}",
        "xcsh: bash runs unconfined",
    ]
    text_lines = _lines(lambda console: show_print_opening(console, PLAIN, opened, progress=True))
    assert text_lines == [
        *json_lines,
        "instructions: /work/app/AGENTS.md",
        "custom tools: /t/bad.py: SyntaxError",
        "resumed: re-previewed against the current files (was: AST Edit: 1 replacement in 1 file):",
        *PREVIEW,
        "resumed: dropped Edit: gone",
    ]
    header = opening_header(opened)
    assert header["notices"] == ["bash runs unconfined"]
    assert header["instructions"] == ["/work/app/AGENTS.md"]
