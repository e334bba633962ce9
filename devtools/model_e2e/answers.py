"""Whether a run's final answer contradicts what the run did, as its events record it.

The events are the journal's account: an applied ``resolve`` and a successful
``edit`` or ``write`` wrote files; ``run_end`` counts what is left pending.
An answer contradicts them when, after a change was written and nothing is
pending, it tells the user to apply, resolve or check something still; when
it claims a change was made and nothing was written; or when it says a change
was discarded or nothing changed while a change was written. The phrases are
read case-blind, and one negated earlier in its sentence ("nothing is
pending") does not count; the rule is a heuristic, the same before and after a change
to xcsh, so the rate it gives can be compared.
"""

from __future__ import annotations

import re

from model_e2e.runner import RunLog

_STILL_TO_DO = re.compile(
    r"`resolve`|\bresolve (tool|it|the)|\bcall(ing)? (the )?.?resolve|`only`|"
    r"\b(need|needs|have|has|can|should|must) (to )?(be )?(apply|applied|resolve)|"
    r"\bto apply (the|these|this|it)\b|\b(is|are|still) pending\b|\bcheck function\b",
    re.IGNORECASE,
)
_CLAIMS_CHANGE = re.compile(
    r"\b(has|have|was|were|successfully|I|I've|I have)\s+(been\s+)?"
    r"(renamed|replaced|applied|changed|updated|rewritten|modified)\b",
    re.IGNORECASE,
)
_CLAIMS_NONE = re.compile(
    r"\bdiscarded\b|\bno changes? (was|were|has been|have been) (made|applied)\b|"
    r"\bnothing (was|has been) (changed|applied)\b",
    re.IGNORECASE,
)


_NEGATED = re.compile(r"\b(nothing|no|not|none|never)\b[^.!?\n]*$", re.IGNORECASE)
"""A negation earlier in the same sentence: "nothing is pending" says what the events say."""


def _affirmed(pattern: re.Pattern[str], answer: str) -> re.Match[str] | None:
    """The first match of ``pattern`` in ``answer`` not negated earlier in its sentence."""
    for found in pattern.finditer(answer):
        if not _NEGATED.search(answer[max(0, found.start() - 60) : found.start()]):
            return found
    return None


def wrote(log: RunLog) -> bool:
    """Whether the run wrote a change: an applied ``resolve``, or ``edit``/``write`` that worked."""
    applied = any(r.get("action") == "apply" and not r.get("is_error") for r in log.of("resolved"))
    names = {c.get("id"): c.get("name") for c in log.of("tool_call_start")}
    direct = any(
        names.get((r.get("message") or {}).get("tool_call_id")) in ("edit", "write")
        and not (r.get("message") or {}).get("is_error")
        for r in log.of("tool_result")
    )
    return applied or direct


def contradiction(log: RunLog) -> str:
    """Why the final answer contradicts the run's events, or ``""`` when it does not."""
    answer = log.answer()
    if not answer:
        return ""
    ends = log.of("run_end")
    pending = int(ends[-1].get("pending", 0)) if ends else 0
    written = wrote(log)
    if written and not pending and (found := _affirmed(_STILL_TO_DO, answer)):
        return f"says something is left to do after the apply: {found.group(0)!r}"
    if not written and (found := _affirmed(_CLAIMS_CHANGE, answer)):
        return f"claims a change nothing wrote: {found.group(0)!r}"
    if written and (found := _affirmed(_CLAIMS_NONE, answer)):
        return f"says nothing changed after a change was written: {found.group(0)!r}"
    return ""
