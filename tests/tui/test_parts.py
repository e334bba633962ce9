"""The status line, slash commands, answers and event rendering, without a terminal."""

from __future__ import annotations

import io
import subprocess
import sys

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from xcsh.agent import ToolCallStart, ToolResult
from xcsh.core import TextContent, ToolResultMessage, Usage
from xcsh.tui import commands
from xcsh.tui.render import EventRenderer, collapse
from xcsh.tui.status import pending_text, short_model, status_line
from xcsh.ui import TerminalStyle, format_arguments, make_console, parse_decision
from xcsh.ui.usage import UsageTotals, tokens


def test_pending_part_is_exact() -> None:
    label = "AST Edit: 3 replacements in 2 files"
    assert (
        pending_text(2, label, unicode=True)
        == "2 pending · top: AST Edit: 3 replacements in 2 files"
    )
    assert (
        pending_text(2, label, unicode=False)
        == "2 pending - top: AST Edit: 3 replacements in 2 files"
    )
    assert pending_text(0, None, unicode=True) == "no pending"


def test_status_line_shows_model_tokens_cost_pending() -> None:
    usage = UsageTotals().add(
        Usage(input_tokens=1200, output_tokens=80, cache_read_tokens=300, cost_usd=0.0125)
    )
    line = status_line(
        model=short_model("anthropic", "claude-sonnet-4-5"),
        usage=usage,
        pending=1,
        top_label="AST Edit: 1 replacement in 1 file",
        unicode=True,
    )
    assert line == (
        "1 pending · top: AST Edit: 1 replacement in 1 file · "
        "anthropic:claude-sonnet-4-5 · 1.5k in / 80 out · $0.0125"
    )
    assert tokens(999) == "999" and tokens(2_500_000) == "2.5M"
    assert short_model("scripted", "/tmp/x/steps.json") == "scripted:steps.json"
    assert short_model("openai", "m" * 50).startswith("openai:...")


def test_parse_commands_and_aliases() -> None:
    assert commands.parse("/apply looks right") == ("apply", "looks right")
    assert commands.parse("  /Discard  ") == ("discard", "")
    assert commands.parse("/quit") == ("exit", "")
    assert commands.parse("rename /foo") is None and commands.parse("//not a command") is None


def test_a_unique_prefix_names_its_command() -> None:
    assert commands.complete_name("ap") == "apply" and commands.complete_name("undo") == "undo"
    assert commands.complete_name("") is None and commands.complete_name("x") is None


def test_completion_offers_matching_commands_only_before_a_space() -> None:
    completer = commands.SlashCompleter()

    def complete(text: str) -> list[str]:
        return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]

    assert complete("/") == [f"/{c.name}" for c in commands.COMMANDS]
    assert complete("/ap") == ["/apply"]
    assert complete("/apply x") == [] and complete("hello") == []


def test_answers_must_be_clear() -> None:
    for text in ("y", "YES", "a", "Apply"):
        answer = parse_decision(text)
        assert answer is not None and answer.decision == "apply"
    declined = parse_decision("d keep print for now")
    assert declined is not None and declined.decision == "discard"
    assert declined.reason == "keep print for now"
    assert parse_decision("no: use tabs") == parse_decision("n - use tabs")
    review = parse_decision("r")
    assert review is not None and review.decision == "review"
    assert parse_decision("r", review=False) is None
    for unclear in ("", "   ", "sure", "ok", "maybe later", "applyy"):
        assert parse_decision(unclear) is None


def test_tool_call_and_collapsed_result() -> None:
    out = io.StringIO()
    style = TerminalStyle(color=False, unicode=False)
    render = EventRenderer(make_console(out, style), style)
    render(ToolCallStart(id="c", name="read", arguments={"path": "a.py"}))
    text = "\n".join(f"line {i}" for i in range(10))
    message = ToolResultMessage(tool_call_id="c", tool_name="read", content=[TextContent(text)])
    render(ToolResult(message=message, text=text))
    assert out.getvalue() == (
        '-> read {"path": "a.py"}\n'
        "  | line 0\n  | line 1\n  | line 2\n  | line 3\n  | ... 6 more lines\n"
    )
    assert collapse("a\nb", 4) == (["a", "b"], 0)
    assert format_arguments({"x": "y" * 300}, width=20).endswith("...")


def test_start_up_imports_no_provider_sdk() -> None:
    code = (
        "import sys\n"
        "import xcsh.cli, xcsh.cli.agent_cmd, xcsh.tui, xcsh.tui.app\n"
        "from pathlib import Path\n"
        "from xcsh.tui.app import InteractiveApp, InteractiveOptions\n"
        "app = InteractiveApp(InteractiveOptions(cwd=Path('.')))\n"
        "app._make_prompt()\n"
        "loaded = [m for m in ('openai', 'anthropic', 'httpx', 'mcp') if m in sys.modules]\n"
        "print(','.join(loaded))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == ""


def test_a_provider_error_is_shown_once() -> None:
    from xcsh.agent import AgentError, RunEnd

    out = io.StringIO()
    style = TerminalStyle(color=False, unicode=False)
    render = EventRenderer(make_console(out, style), style)
    render(AgentError(message="openai: the server said no", kind="provider"))
    render(RunEnd(reason="error", final_text="", message="openai: the server said no", pending=0))
    assert out.getvalue() == "error: openai: the server said no\n"
    render(RunEnd(reason="forced_cap", final_text="", message="Stopped: capped", pending=1))
    assert out.getvalue().endswith("Stopped: capped\n")


def test_failed_and_cancelled_results_name_their_tool() -> None:
    from xcsh.agent.run.history import CANCELLED_TEXT

    out = io.StringIO()
    style = TerminalStyle(color=False, unicode=False)
    render = EventRenderer(make_console(out, style), style)
    for call_id, name in (("c1", "bash"), ("c2", "grep")):
        message = ToolResultMessage(
            tool_call_id=call_id,
            tool_name=name,
            content=[TextContent(CANCELLED_TEXT)],
            is_error=True,
        )
        render(ToolResult(message=message, text=CANCELLED_TEXT))
    assert out.getvalue() == f"  | bash: {CANCELLED_TEXT}\n  | grep: {CANCELLED_TEXT}\n"
