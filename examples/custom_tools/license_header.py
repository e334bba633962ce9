"""Propose a license header for every Python file that lacks one, as one preview.

The tool only computes the new contents; ``api.file_changes`` turns them into a
pending action whose preview shows one diff per file. ``resolve`` applies all of
them, or only the files named in ``only``, through xcsh's undo journal
(``xcsh undo`` takes it back); ``discard`` writes nothing.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from xcsh import CustomTool, CustomToolAPI

HEADER = "# SPDX-License-Identifier: {license}\n"


class Params(BaseModel):
    """Arguments of ``license_header``."""

    path: str = Field(default=".", description="Folder to look in, relative to the workspace.")
    license: str = Field(default="MIT", description="SPDX identifier, e.g. MIT or Apache-2.0.")


def factory(api: CustomToolAPI) -> CustomTool:
    """The ``license_header`` tool."""

    def execute(tool_call_id: str, params: Params) -> str:
        header = HEADER.format(license=params.license)
        files: dict[str, str] = {}
        for file in sorted((api.cwd / params.path).rglob("*.py")):
            rel = file.relative_to(api.cwd)
            text = file.read_text(encoding="utf-8")
            if not rel.parts[0].startswith(".") and not text.startswith(HEADER[:26]):
                files[rel.as_posix()] = header + text
        if not files:
            return "Every Python file already has a license header."
        action = api.file_changes(f"License header: {len(files)} files", files)
        preview_id = api.push_pending_action(action)
        return (
            f"Previewed {preview_id}: a {params.license} header in {', '.join(files)}. "
            "Nothing is written until resolve applies it (all, or `only` some files)."
        )

    return CustomTool(
        name="license_header",
        label="License Header",
        description="Add an SPDX license header to every Python file under a folder (previewed).",
        parameters=Params,
        execute=execute,
    )


__all__ = ["factory"]
