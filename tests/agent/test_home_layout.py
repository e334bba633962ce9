"""An unusable $XCSH_HOME layout or an unknown setting is a usage error, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import run_xcsh


def home_is_a_file(root: Path) -> tuple[Path, str]:
    home = root / "home-file"
    home.write_text("not a folder")
    return home, f"XCSH_HOME {home} is not a folder"


def settings_is_a_folder(root: Path) -> tuple[Path, str]:
    home = root / "home"
    (home / "settings.toml").mkdir(parents=True)
    return home, f"{home / 'settings.toml'} is not a file"


def sessions_is_a_file(root: Path) -> tuple[Path, str]:
    home = root / "home"
    home.mkdir()
    (home / "sessions").write_text("")
    return home, f"{home / 'sessions'} is not a folder"


def home_inside_a_file(root: Path) -> tuple[Path, str]:
    (root / "plain").write_text("")
    home = root / "plain" / "home"
    return home, f"XCSH_HOME {home} is not a folder"


@pytest.mark.parametrize(
    "layout", [home_is_a_file, settings_is_a_folder, sessions_is_a_file, home_inside_a_file]
)
def test_bad_home_layout_is_a_usage_error(
    tmp_path: Path, layout: Callable[[Path], tuple[Path, str]]
) -> None:
    steps = tmp_path / "steps.json"
    steps.write_text(json.dumps([{"text": "hi"}]))
    home, message = layout(tmp_path)
    done = run_xcsh(
        ["--provider", "scripted", "--model", str(steps), "-p", "hi"], cwd=tmp_path, home=home
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert message in done.stderr


def test_unknown_setting_is_refused_with_the_known_keys(tmp_path: Path, xcsh_home: Path) -> None:
    steps = tmp_path / "steps.json"
    steps.write_text(json.dumps([{"text": "hi"}]))
    (xcsh_home / "settings.toml").write_text(f'provider = "scripted"\nmodle = "{steps}"\n')
    done = run_xcsh(["-p", "hi"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 2
    assert "unknown setting 'modle' (did you mean 'model'?)" in done.stderr
    assert "max_forced_turns" in done.stderr and "base_url" in done.stderr
    assert not (xcsh_home / "sessions").exists()
