"""The public names of the custom-tool layer stay stable (contract §8)."""

from __future__ import annotations

import xcsh
import xcsh.plugins


def test_top_level_names_come_from_the_plugin_layer() -> None:
    for name in ("CustomTool", "CustomToolAPI", "CustomToolPendingAction", "load_custom_tools"):
        assert getattr(xcsh, name) is getattr(xcsh.plugins, name)
        assert name in xcsh.__all__


def test_plugins_all_is_exact_and_importable() -> None:
    assert sorted(xcsh.plugins.__all__) == sorted(
        [
            "DEFAULT_SOURCE_TOOL_NAME",
            "ENTRY_POINT_GROUP",
            "STORE_UNAVAILABLE_MESSAGE",
            "CustomTool",
            "CustomToolAPI",
            "CustomToolPendingAction",
            "CustomToolSet",
            "ExecResult",
            "HeadlessUI",
            "LoadError",
            "LoadResult",
            "LoadedTool",
            "ToolFactory",
            "ToolSource",
            "ToolUI",
            "aask_trust",
            "aload_custom_tools",
            "aprepare_custom_tools",
            "ask_trust",
            "is_trusted",
            "load_custom_tools",
            "prepare_custom_tools",
            "project_tool_candidates",
            "project_tools_dir",
            "tools_fingerprint",
            "trust_folder",
            "trust_state",
            "trusted_folders",
            "untrust_folder",
            "user_tools_dir",
            "xcsh_home",
        ]
    )
    for name in xcsh.plugins.__all__:
        assert hasattr(xcsh.plugins, name), name
    assert xcsh.plugins.STORE_UNAVAILABLE_MESSAGE == (
        "Pending action store unavailable for custom tools in this runtime."
    )
    assert xcsh.plugins.DEFAULT_SOURCE_TOOL_NAME == "custom_tool"
    assert xcsh.plugins.ENTRY_POINT_GROUP == "xcsh.tools"
