"""The first turn's cost, cold: the full profile's long prompt against the compact one.

Each measurement starts a fresh ``llama-server`` (an empty prompt cache),
sends the rename task through ``xcsh -p --mode json`` with ``profile`` set,
and stops xcsh once the first answer is in. The server's own ``timings``
give the prompt it evaluated and how long that took; the events give the
turn's wall time. Full and compact alternate, so a machine whose load drifts
weighs on both alike.
"""

from __future__ import annotations

import shutil
import statistics
from pathlib import Path
from typing import Any

from model_e2e.project import fresh_repo, sdist
from model_e2e.record import RecordingProxy, server_timings
from model_e2e.runner import Event, run_xcsh, write_settings
from model_e2e.server import LlamaServer
from model_e2e.tasks import RENAMES

PROFILES = ("full", "compact")
"""The profiles compared, in the order each pair runs them."""


def _answered(event: Event) -> bool:
    return event.type in ("tool_call_start", "turn_end", "error")


def measure_first_turns(
    binary: Path,
    weights: Path,
    out: Path,
    *,
    pairs: int,
    context: int,
    threads: int,
    timeout: float,
    settings: dict[str, Any],
) -> list[dict[str, Any]]:
    """Time ``pairs`` cold first turns of each profile; one row per turn.

    Args:
        binary: the ``llama-server`` executable.
        weights: the model's GGUF file.
        out: the results folder (exchanges, server logs, working copies go under it).
        pairs: how many times each profile is measured.
        context: the server's context size in tokens.
        threads: the server's CPU threads.
        timeout: seconds allowed for one first turn.
        settings: settings.toml keys for every run (``profile`` is set per row).

    Returns:
        Rows with ``profile``, ``prompt_tokens`` (evaluated, nothing cached),
        ``cache_n``, ``prompt_s`` (the server's prompt evaluation), ``turn_s``
        (the first turn's wall time in xcsh's events, ``None`` when it did not
        end) and ``output_tokens``.
    """
    rows: list[dict[str, Any]] = []
    for pair in range(pairs):
        for profile in PROFILES:
            name = f"first-turn-{profile}-{pair}"
            exchange = out / "exchanges" / f"{weights.stem}-{name}.jsonl"
            exchange.parent.mkdir(parents=True, exist_ok=True)
            exchange.unlink(missing_ok=True)
            home = out / "home-first-turn"
            shutil.rmtree(home, ignore_errors=True)
            write_settings(home, {**settings, "profile": profile})
            repo = fresh_repo(out / "work" / name / "inflection", sdist())
            log_path = out / f"server-{name}.log"
            with LlamaServer(binary, weights, log_path, context=context, threads=threads) as server:
                proxy = RecordingProxy(server.port)
                proxy.log_path = exchange
                try:
                    run = run_xcsh(
                        repo,
                        home,
                        proxy.base_url,
                        RENAMES[0].prompt(),
                        timeout=timeout,
                        stop_when=_answered,
                    )
                finally:
                    proxy.close()
            timings = server_timings(exchange)
            first = timings[0] if timings else None
            ended = any(_answered(e) for e in run.events)
            rows.append(
                {
                    "profile": profile,
                    "pair": pair,
                    "prompt_tokens": first.prompt_n if first else None,
                    "cache_n": first.cache_n if first else None,
                    "prompt_s": first.prompt_ms / 1000 if first else None,
                    "turn_s": run.first_turn_seconds() if ended else None,
                    "output_tokens": next(iter(run.output_tokens()), None),
                    "exchange": str(exchange),
                }
            )
    return rows


def _median(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [float(r[key]) for r in rows if r.get(key) is not None]
    return statistics.median(values) if values else None


def render_first_turns(rows: list[dict[str, Any]]) -> str:
    """The comparison as a Markdown table, then the ratios full / compact."""
    lines = [
        "| profile | runs | prompt tokens | prompt s (server) | first turn s (wall) | out tokens |",
        "|---|---|---|---|---|---|",
    ]
    medians: dict[str, dict[str, float | None]] = {}
    for profile in PROFILES:
        group = [r for r in rows if r["profile"] == profile]
        keys = ("prompt_tokens", "prompt_s", "turn_s", "output_tokens")
        medians[profile] = {key: _median(group, key) for key in keys}
        cells = [_cell(medians[profile][key]) for key in keys]
        lines.append(f"| {profile} | {len(group)} | " + " | ".join(cells) + " |")
    full, compact = medians["full"], medians["compact"]
    for key, what in (("prompt_s", "prompt evaluation"), ("turn_s", "first turn (wall)")):
        a, b = full[key], compact[key]
        if a and b:
            ratio = f"compact takes {b / a:.2f} of full's time ({a / b:.1f}x faster)"
            lines.append(f"\n{what}: {ratio}")
    return "\n".join(lines)


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"
