"""A full disk under ``$XCSH_HOME``, for real: the installed ``xcsh`` runs in a mount
namespace (bubblewrap, as the sandbox uses) where ``$XCSH_HOME`` is a 200 KiB tmpfs.

An apply whose journal copies do not fit is refused with nothing written, and leaves
no stored content behind that no record refers to, so the space is there for the next
command (`xcsh undo` of an earlier change); a kill while the copies are written leaves
some, and `xcsh recover` removes them. Each message names the step to run again.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers import xcsh_env
from xcsh.sandbox import kernel_support

SUPPORT = kernel_support()
pytestmark = pytest.mark.skipif(
    not SUPPORT.namespaces.available,
    reason=f"no mount namespace for a small tmpfs: {SUPPORT.namespaces.reason}",
)

SMALL = 200 * 1024

DRIVER = r"""
import glob, json, os, subprocess, sys

steps, report = json.loads(sys.argv[1]), sys.argv[2]
home = os.environ["XCSH_HOME"]
done = []
for step in steps:
    argv = [sys.executable, *(["-c", step["script"]] if "script" in step else ["-m", "xcsh"])]
    run = subprocess.run([*argv, *step["args"]], capture_output=True, text=True)
    blobs = sorted(n for d in glob.glob(home + "/journal/*/blobs") for n in os.listdir(d))
    referred = set()
    for record in glob.glob(home + "/journal/*/entries/*.json"):
        with open(record) as f:
            referred |= {e["before"] for e in json.load(f)["files"] if e["before"]}
    done.append({"code": run.returncode, "out": run.stdout, "err": run.stderr,
                 "blobs": blobs, "referred": sorted(referred)})
with open(report, "w") as f:
    json.dump(done, f)
"""

KILL_AT_BLOB = r"""
import os, signal, sys
from xcsh.journal import blobs

real, count, at = blobs.BlobStore._write, 0, int(sys.argv[1])

def write(self, digest, data):
    global count
    count += 1
    if count == at:
        os.kill(os.getpid(), signal.SIGKILL)
    real(self, digest, data)

blobs.BlobStore._write = write
from xcsh.cli import main
sys.argv = ["xcsh", *sys.argv[2:]]
sys.exit(main())
"""


def on_a_small_home(ws: Path, home: Path, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run ``steps`` (xcsh arguments, or a script and its arguments) one after the other in
    ``ws`` with ``$XCSH_HOME`` (``home``) a 200 KiB tmpfs; what each printed and left."""
    report = ws.parent / "report.json"
    home.mkdir(exist_ok=True)
    subprocess.run(
        [
            SUPPORT.namespaces.bwrap,  # the bwrap the sandbox uses
            *("--bind", "/", "/", "--dev", "/dev", "--proc", "/proc"),
            *("--size", str(SMALL), "--tmpfs", str(home), "--chdir", str(ws)),
            *(sys.executable, "-c", DRIVER, json.dumps(steps), str(report)),
        ],
        env=xcsh_env(home),
        check=True,
        timeout=300,
    )
    return list(json.loads(report.read_text()))


def sixty_files(ws: Path) -> None:
    """60 files of 4 KiB each, all different: their copies need more than 200 KiB."""
    (ws / "pkg").mkdir(parents=True)
    for i in range(60):
        body = "".join(f"x_{i}_{j} = {j}\n" for j in range(400))[: 4096 - 20]
        (ws / "pkg" / f"m{i:02}.py").write_text(f"print({i})\n{body}")
    (ws / "first.py").write_text("small(1)\n")


EDIT_FIRST = ["ast-edit", "-p", "small($A)", "-r", "tiny($A)", "--yes", "first.py"]
EDIT_ALL = ["ast-edit", "-p", "print($A)", "-r", "log($A)", "--yes", "pkg"]


def test_an_apply_refused_for_a_full_disk_keeps_no_copy_and_undo_still_works(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    sixty_files(ws)
    before = {p: p.read_bytes() for p in sorted(ws.rglob("*.py"))}
    first, full, undone = on_a_small_home(
        ws, tmp_path / "home", [{"args": EDIT_FIRST}, {"args": EDIT_ALL}, {"args": ["undo"]}]
    )
    assert first["code"] == 0, first["err"]
    assert full["code"] == 3, full["err"]
    assert "No space left on device" in full["err"] and "Nothing was written" in full["err"]
    assert "then apply again" in full["err"]
    assert full["blobs"] == full["referred"]  # no copy left that no record refers to
    assert undone["code"] == 0, undone["err"]
    assert undone["out"].startswith("Undid 'AST Edit: 1 replacement in 1 file'")
    assert {p: p.read_bytes() for p in sorted(ws.rglob("*.py"))} == before


def test_copies_a_killed_apply_left_are_removed_by_recover(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    sixty_files(ws)
    small = [p for p in (ws / "pkg").iterdir() if p.name < "m20"]
    for p in (ws / "pkg").iterdir():
        if p not in small:
            p.unlink()  # 20 files: their copies fit
    killed, recovered, again = on_a_small_home(
        ws,
        tmp_path / "home",
        [
            {"script": KILL_AT_BLOB, "args": ["12", *EDIT_ALL]},
            {"args": ["recover"]},
            {"args": EDIT_ALL},
        ],
    )
    assert killed["code"] == -9, killed["out"][-800:] + killed["err"]
    assert len(killed["blobs"]) >= 10 and killed["referred"] == []  # the kill left them
    assert recovered["code"] == 0, recovered["err"]
    assert recovered["blobs"] == recovered["referred"] == []
    assert again["code"] == 0, again["err"]
    assert len(again["blobs"]) == 20 and again["blobs"] == again["referred"]
    assert all(p.read_text().startswith("log(") for p in small)


FILL = r"""
import os, sys
path = os.path.join(os.environ["XCSH_HOME"], "filler")
if sys.argv[1] == "fill":
    with open(path, "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"x" * 1024)
        except OSError:
            pass
else:
    os.unlink(path)
"""


def test_an_undo_refused_for_a_full_disk_says_to_run_undo_again(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "first.py").write_text("small(1)\n")
    _, _, refused, _, undone = on_a_small_home(
        ws,
        tmp_path / "home",
        [
            {"args": EDIT_FIRST},
            {"script": FILL, "args": ["fill"]},
            {"args": ["undo"]},
            {"script": FILL, "args": ["free"]},
            {"args": ["undo"]},
        ],
    )
    assert refused["code"] == 1
    assert "No space left on device" in refused["err"], refused["err"]
    assert refused["err"].endswith("then undo again.\n") and "apply again" not in refused["err"]
    assert refused["blobs"] == refused["referred"]
    assert undone["code"] == 0, undone["err"]
    assert (ws / "first.py").read_text() == "small(1)\n"
