"""load_custom_tools on real tool files: discovery, factories, errors, clashes (contract §5)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from plugin_helpers import write_tool

from xcsh import PendingActionStore, ToolError, load_custom_tools
from xcsh.plugins import LoadResult, aload_custom_tools, trust_folder

GREET = """
from pydantic import BaseModel
from xcsh import CustomTool

class Params(BaseModel):
    name: str

def factory(api):
    def execute(tool_call_id, params):
        return f"hello {params.name} from {type(params).__name__} ({tool_call_id})"
    return CustomTool(name="{NAME}", label="Greet", description="Greets.",
                      parameters=Params, execute=execute)
"""


def greet(name: str) -> str:
    return GREET.replace("{NAME}", name)


def load(project: Path, **kwargs: object) -> LoadResult:
    kwargs.setdefault("store", PendingActionStore())
    kwargs.setdefault("entry_points", False)
    return load_custom_tools(project, **kwargs)  # type: ignore[arg-type]


async def test_user_tool_with_pydantic_params_gets_the_model(
    project: Path, user_tools: Path
) -> None:
    path = write_tool(user_tools, "greet.py", greet("greet"))
    result = load(project)
    assert result.errors == []
    [entry] = result.loaded
    assert (entry.tool.name, entry.tool.label, entry.source, entry.path) == (
        "greet",
        "Greet",
        "user",
        str(path),
    )
    out = await entry.tool.execute("call-7", {"name": "ada"})
    assert out.text == "hello ada from Params (call-7)"
    with pytest.raises(ToolError, match="name"):
        await entry.tool.execute("call-8", {})


async def test_json_schema_params_arrive_as_a_dict_after_validation(
    project: Path, user_tools: Path
) -> None:
    write_tool(
        user_tools,
        "count.py",
        """
        from xcsh import CustomTool
        SCHEMA = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}},
                  "required": ["n"], "additionalProperties": False}
        async def factory(api):
            async def execute(tool_call_id, params):
                await asyncio.sleep(0)
                text = f"{type(params).__name__}:{params['n']}"
                return {"content": [{"type": "text", "text": text}]}
            return [CustomTool(name="count", description="Counts.", parameters=SCHEMA,
                               execute=execute)]
        import asyncio
        """,
    )
    result = load(project)
    assert result.errors == []
    [tool] = result.tools
    assert tool.label == "count"  # label defaults to the name
    assert (await tool.execute("c", {"n": 3})).text == "dict:3"
    with pytest.raises(ToolError, match="n: 0 is less than the minimum of 1"):
        await tool.execute("c", {"n": 0})
    assert tool.json_schema()["required"] == ["n"]


async def test_package_tool_with_relative_import(project: Path, user_tools: Path) -> None:
    write_tool(user_tools, "pkgtool/__init__.py", "from .impl import factory\n")
    write_tool(
        user_tools,
        "pkgtool/impl.py",
        """
        from xcsh import CustomTool
        def factory(api):
            return CustomTool(name="pkg_tool", description="From a package.",
                              parameters={"type": "object"}, execute=lambda i, p: "pkg ok")
        """,
    )
    write_tool(user_tools, "_helper.py", "raise RuntimeError('helpers are not tools')\n")
    write_tool(user_tools, "notes.txt", "not python\n")
    result = load(project)
    assert result.errors == []
    [entry] = result.loaded
    assert entry.path == str(user_tools / "pkgtool")
    assert (await entry.tool.execute("c", {})).text == "pkg ok"


def test_bad_files_become_load_errors_and_never_stop_the_others(
    project: Path, user_tools: Path
) -> None:
    write_tool(user_tools, "a_syntax.py", "def factory(api):\n    return (\n")
    write_tool(user_tools, "b_import.py", "import xcsh_no_such_module_anywhere\n")
    write_tool(user_tools, "c_nofactory.py", "x = 1\n")
    write_tool(
        user_tools,
        "d_raises.py",
        """
        def factory(api):
            raise RuntimeError("boom in factory")
        """,
    )
    write_tool(user_tools, "e_wrongtype.py", "def factory(api):\n    return 42\n")
    write_tool(user_tools, "e_none.py", "def factory(api):\n    return None\n")
    write_tool(user_tools, "e_notfunction.py", "factory = 7\n")
    write_tool(user_tools, "f_exit.py", "import sys\nsys.exit(3)\n")
    write_tool(
        user_tools,
        "g_badname.py",
        """
        from xcsh import CustomTool
        def factory(api):
            return CustomTool(name="bad name!", description="x", parameters={"type": "object"},
                              execute=lambda i, p: "x")
        """,
    )
    write_tool(user_tools, "z_good.py", greet("still_loads"))
    result = load(project)
    assert [t.name for t in result.tools] == ["still_loads"]
    by_file = {Path(e.path).name: e for e in result.errors}
    assert set(by_file) == {
        "a_syntax.py",
        "b_import.py",
        "c_nofactory.py",
        "d_raises.py",
        "e_wrongtype.py",
        "e_none.py",
        "e_notfunction.py",
        "f_exit.py",
        "g_badname.py",
    }
    assert all(e.source == "user" and e.kind == "error" for e in result.errors)
    assert by_file["a_syntax.py"].error.startswith("SyntaxError: ")
    assert "line 2" in by_file["a_syntax.py"].error
    assert "ModuleNotFoundError" in by_file["b_import.py"].error
    assert "no function named 'factory'" in by_file["c_nofactory.py"].error
    raised = by_file["d_raises.py"].error
    assert raised.startswith("factory raised RuntimeError: boom in factory")
    assert f"{user_tools / 'd_raises.py'}, line 2" in raised
    assert by_file["e_wrongtype.py"].error == (
        "factory returned an int; expected a CustomTool or a list of CustomTool."
    )
    assert by_file["e_none.py"].error == (
        "factory returned None; expected a CustomTool or a list of CustomTool."
    )
    assert by_file["e_notfunction.py"].error == "'factory' is an int, not a function."
    assert "SystemExit" in by_file["f_exit.py"].error
    assert "Invalid tool name 'bad name!'" in by_file["g_badname.py"].error
    assert result.failures == result.errors


def test_name_clash_with_builtin_and_between_files(project: Path, user_tools: Path) -> None:
    write_tool(user_tools, "a.py", greet("shared"))
    write_tool(user_tools, "b.py", greet("shared"))
    write_tool(user_tools, "c.py", greet("ast_edit"))
    result = load(project)
    [entry] = result.loaded
    assert entry.path == str(user_tools / "a.py")
    errors = {Path(e.path).name: e.error for e in result.errors}
    assert errors["b.py"] == (
        f"tool name 'shared' is already used by the user tool at {user_tools / 'a.py'}; "
        "rename one of them."
    )
    assert errors["c.py"] == "tool name 'ast_edit' clashes with a built-in tool; rename it."


def test_a_project_tool_cannot_shadow_a_user_tool(
    project: Path, user_tools: Path, project_tools: Path
) -> None:
    write_tool(user_tools, "mine.py", greet("deploy"))
    write_tool(project_tools, "theirs.py", greet("deploy"))
    result = load(project, trust_project=True)
    assert [(e.source, e.path) for e in result.loaded] == [("user", str(user_tools / "mine.py"))]
    [error] = result.errors
    assert error.source == "project" and "already used by the user tool" in error.error


def test_untrusted_project_is_refused_with_how_to_trust(
    project: Path, user_tools: Path, project_tools: Path
) -> None:
    write_tool(project_tools, "proj.py", greet("proj_tool"))
    write_tool(user_tools, "mine.py", greet("mine"))
    result = load(project)
    assert [t.name for t in result.tools] == ["mine"]
    [notice] = result.errors
    real = project.resolve()
    assert notice.kind == "untrusted" and notice.source == "project"
    assert notice.path == str(project_tools)
    assert notice.error == (
        f"Project tools in {project_tools} were not loaded: the folder {real} is not trusted "
        "(custom tools are code from the repository). "
        f"To load them, run 'xcsh trust {real}' (remembered), "
        "or pass --trust-project (this run only)."
    )
    assert result.untrusted and result.failures == []

    once = load(project, trust_project=True)
    assert sorted(t.name for t in once.tools) == ["mine", "proj_tool"]
    assert load(project).untrusted  # --trust-project was for one run only

    trust_folder(project)
    remembered = load(project)
    assert remembered.errors == []
    assert [e.source for e in remembered.loaded] == ["user", "project"]


def test_no_notice_without_project_tools(project: Path) -> None:
    (project / ".xcsh" / "tools").mkdir(parents=True)
    assert load(project).errors == []


def test_a_tools_path_that_is_a_file_gives_a_notice(
    project: Path, user_tools: Path, project_tools: Path
) -> None:
    user_tools.write_text("not a folder")
    project_tools.parent.mkdir()
    project_tools.write_text("not a folder either")
    result = load(project)
    assert [(e.path, e.source, e.kind) for e in result.errors] == [
        (str(user_tools), "user", "error"),
        (str(project_tools), "project", "error"),
    ]
    assert result.errors[0].error == (
        f"{user_tools} is a file, not a folder, so no tools load from it. Custom tools are "
        ".py files or packages inside a folder of that name: move the file aside."
    )


def test_a_tools_folder_that_cannot_be_listed_gives_a_notice(
    project: Path,
    user_tools: Path,
    open_tmp_path: Path,
    unprivileged: Callable[[], AbstractContextManager[None]],
) -> None:
    locked = open_tmp_path / "tools"
    write_tool(locked, "greet.py", greet("unseen"))
    locked.chmod(0o000)
    with unprivileged():
        result = load(open_tmp_path, home=open_tmp_path)
    assert result.tools == []
    assert [(e.path, e.error) for e in result.errors] == [
        (str(locked), f"cannot list {locked}: Permission denied. No tools load from it.")
    ]


def test_a_file_above_the_project_tools_folder_is_not_a_problem(project: Path) -> None:
    (project / ".xcsh").write_text("some other program's file")
    assert load(project).errors == []


def test_project_folder_that_is_the_user_folder_loads_once(tmp_path: Path) -> None:
    home = tmp_path / "me" / ".xcsh"
    write_tool(home / "tools", "greet.py", greet("greet_once"))
    result = load(tmp_path / "me", home=home)
    assert result.errors == []
    assert [(e.tool.name, e.source) for e in result.loaded] == [("greet_once", "user")]


def test_loading_writes_no_bytecode_into_the_project(project: Path, project_tools: Path) -> None:
    write_tool(project_tools, "p.py", greet("p"))
    assert [t.name for t in load(project, trust_project=True).tools] == ["p"]
    assert not list(project.rglob("__pycache__"))


async def test_sync_loader_inside_a_running_loop_and_awaitable_result(
    project: Path, user_tools: Path
) -> None:
    write_tool(
        user_tools,
        "asyncf.py",
        """
        import asyncio
        from xcsh import CustomTool
        async def factory(api):
            await asyncio.sleep(0)
            return CustomTool(name="asyncf", description="d", parameters={"type": "object"},
                              execute=lambda i, p: "ok")
        """,
    )
    store = PendingActionStore()
    awaited = await load_custom_tools(project, store=store, entry_points=False)
    assert [t.name for t in awaited.tools] == ["asyncf"]
    native = await aload_custom_tools(project, store=store, entry_points=False)
    assert [t.name for t in native.tools] == ["asyncf"]
    assert (await native.tools[0].execute("c", {})).text == "ok"


async def test_optional_execute_arguments_only_when_declared(
    project: Path, user_tools: Path
) -> None:
    write_tool(
        user_tools,
        "opts.py",
        """
        from xcsh import CustomTool
        S = {"type": "object"}
        def plain(tool_call_id, params):
            return "plain"
        async def rich(tool_call_id, params, signal, on_update):
            on_update("working")
            return f"cancelled={signal.is_set()}"
        def anykw(tool_call_id, params, **kwargs):
            return ",".join(sorted(kwargs))
        def factory(api):
            return [CustomTool(name=n, description="d", parameters=S, execute=f)
                    for n, f in (("plain", plain), ("rich", rich), ("anykw", anykw))]
        """,
    )
    tools = {t.name: t for t in load(project).tools}
    updates: list[object] = []
    cancel = asyncio.Event()
    cancel.set()
    assert (await tools["plain"].execute("c", {}, cancel=cancel)).text == "plain"
    out = await tools["rich"].execute("c", {}, cancel=cancel, on_update=updates.append)
    assert out.text == "cancelled=True"
    assert updates == ["working"]
    assert (await tools["anykw"].execute("c", {})).text == "ctx,on_update,signal"


async def test_execute_failures_surface_as_tool_errors(project: Path, user_tools: Path) -> None:
    write_tool(
        user_tools,
        "fails.py",
        """
        from xcsh import CustomTool, ToolError
        S = {"type": "object"}
        def crash(i, p):
            raise KeyError("missing")
        def refuse(i, p):
            raise ToolError("refused on purpose")
        def factory(api):
            return [CustomTool(name="crash", description="d", parameters=S, execute=crash),
                    CustomTool(name="refuse", description="d", parameters=S, execute=refuse),
                    CustomTool(name="nothing", description="d", parameters=S,
                               execute=lambda i, p: None),
                    CustomTool(name="weird", description="d", parameters=S,
                               execute=lambda i, p: 3.5),
                    CustomTool(name="number", description="d", parameters=S,
                               execute=lambda i, p: 12)]
        """,
    )
    tools = {t.name: t for t in load(project).tools}
    with pytest.raises(ToolError, match=r"^Tool 'crash' failed: KeyError: 'missing'$"):
        await tools["crash"].execute("c", {})
    with pytest.raises(ToolError, match=r"^refused on purpose$"):
        await tools["refuse"].execute("c", {})
    # None is not a result for the model: the message lists what is accepted, without None.
    accepted = "expected an AgentToolResult, a str, or a dict with 'content'"
    for name, got in (("nothing", "None"), ("weird", "a float"), ("number", "an int")):
        with pytest.raises(ToolError) as info:
            await tools[name].execute("c", {})
        assert str(info.value) == f"Tool '{name}' returned a bad result: {accepted}; got {got}."
