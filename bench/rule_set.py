"""A scan of many rules: ``xcsh scan`` against ``ast-grep scan`` with one rule set.

The rule set is written here, in the shape of the public security rule packs
for Python (calls of a library function with a hard-coded or empty secret,
found with ``kind``/``has``/``regex``, utility rules and ``not`` guards;
insecure calls found with patterns; ``any`` of several call forms), so the
benchmark needs nothing fetched. Most rules name a library the standard
library never imports, as in a real pack most rules have nothing to report
on most files; a few match there, so the results are compared on real
matches too.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml
from agcli import ast_grep_binary, parse_stream, run_with_rusage
from rows import Row, median

RULE_SET_GOAL = 1.0

# (rule name, attribute regex, keyword): a call of that function with that keyword
SECRET_CALLS = [
    ("pymysql", r"^pymysql\.connect$", "password"),
    ("psycopg2", r"^psycopg2\.connect$", "password"),
    ("mysql-connector", r"^mysql\.connector\.connect$", "password"),
    ("mariadb", r"^mariadb\.connect$", "password"),
    ("pymssql", r"^pymssql\.connect$", "password"),
    ("pg8000", r"^pg8000\.connect$", "password"),
    ("redis", r"^redis\.Redis$", "password"),
    ("pymongo", r"^pymongo\.MongoClient$", "password"),
    ("ldap3", r"^ldap3\.Connection$", "password"),
    ("neo4j", r"^neo4j\.basic_auth$", "password"),
    ("couchbase", r"^couchbase\.PasswordAuthenticator$", "password"),
    ("cassandra", r"^cassandra\.auth\.PlainTextAuthProvider$", "password"),
    ("requests-auth", r"^requests\.auth\.HTTPBasicAuth$", "password"),
    ("jwt", r"^jwt\.encode$", "key"),
    ("hashids", r"^hashids\.Hashids$", "salt"),
    ("webrepl", r"^webrepl\.start$", "password"),
    ("elasticsearch", r"^elasticsearch\.Elasticsearch$", "bearer_auth"),
    ("tormysql", r"^tormysql\.ConnectionPool$", "password"),
]

# (rule name, pattern): insecure or suspicious calls (several match in the library)
PATTERNS = [
    ("subprocess-shell", "subprocess.Popen($$$ARGS, shell=True)"),
    ("os-system", "os.system($CMD)"),
    ("pickle-loads", "pickle.loads($DATA)"),
    ("marshal-loads", "marshal.loads($DATA)"),
    ("tempfile-mktemp", "tempfile.mktemp($$$ARGS)"),
    ("eval-call", "eval($CODE)"),
    ("exec-call", "exec($CODE)"),
    ("hashlib-md5", "hashlib.md5($$$ARGS)"),
]

# (rule name, call patterns): any of several forms of one insecure call
ANY_CALLS = [
    ("yaml-unsafe-load", ["yaml.load($S)", "yaml.unsafe_load($S)", "yaml.load($S, $L)"]),
    ("ssl-no-verify", ["ssl._create_unverified_context($$$A)", "ssl.CERT_NONE"]),
    ("random-token", ["random.random()", "random.randint($A, $B)", "random.getrandbits($N)"]),
    ("debug-server", ["$APP.run($$$A, debug=True)", "run_simple($$$A, use_debugger=True)"]),
]


def _secret_rule(name: str, regex: str, keyword: str, *, empty: bool) -> dict[str, Any]:
    """A call of the function ``regex`` names with ``keyword`` given a literal string
    (``empty``: an empty one)."""
    content: dict[str, Any] = {"kind": "string_content"}
    value: dict[str, Any] = {"stopBy": "neighbor", "kind": "string"}
    if empty:
        value["not"] = {"has": content}
    else:
        value["has"] = {"stopBy": "end", **content}
    keyword_argument = {
        "stopBy": "neighbor",
        "kind": "keyword_argument",
        "all": [
            {"has": {"stopBy": "neighbor", "kind": "identifier", "regex": f"^{keyword}$"}},
            {"has": value},
        ],
    }
    return {
        "id": f"{name}-{'empty-password' if empty else 'hardcoded-secret'}",
        "language": "python",
        "severity": "warning",
        "message": f"{keyword} is written in the code",
        "note": "read it from the environment or a secret store",
        "utils": {
            "the-call": {
                "kind": "call",
                "all": [
                    {"has": {"stopBy": "neighbor", "kind": "attribute", "regex": regex}},
                    {
                        "has": {
                            "stopBy": "neighbor",
                            "kind": "argument_list",
                            "has": keyword_argument,
                        }
                    },
                ],
            }
        },
        "rule": {
            "kind": "call",
            "matches": "the-call",
            "not": {
                "all": [
                    {"has": {"stopBy": "end", "kind": "ERROR"}},
                    {"inside": {"stopBy": "end", "kind": "ERROR"}},
                ]
            },
        },
    }


def rule_set() -> dict[str, str]:
    """The benchmark's rules by file name: 48 Python rules."""
    documents: list[dict[str, Any]] = [
        _secret_rule(name, regex, keyword, empty=empty)
        for name, regex, keyword in SECRET_CALLS
        for empty in (False, True)
    ]
    documents += [
        {
            "id": name,
            "language": "python",
            "severity": "warning",
            "message": "review this call",
            "rule": {"pattern": pattern},
        }
        for name, pattern in PATTERNS
    ]
    documents += [
        {
            "id": name,
            "language": "python",
            "severity": "info",
            "message": "review this call",
            "rule": {"any": [{"pattern": p} for p in patterns]},
        }
        for name, patterns in ANY_CALLS
    ]
    return {f"{d['id']}.yml": yaml.safe_dump(d, sort_keys=False) for d in documents}


def write_project(folder: Path) -> Path:
    """Write the rule set as a project (``sgconfig.yml`` and ``rules/``); its config path."""
    (folder / "rules").mkdir(parents=True, exist_ok=True)
    for name, text in rule_set().items():
        (folder / "rules" / name).write_text(text, encoding="utf-8")
    config = folder / "sgconfig.yml"
    config.write_text("ruleDirs: [rules]\n", encoding="utf-8")
    return config


def _keys(stdout: bytes) -> set[tuple[str, int, int, str]]:
    return {
        (
            obj["file"].removeprefix("./"),
            obj["range"]["byteOffset"]["start"],
            obj["range"]["byteOffset"]["end"],
            obj["ruleId"],
        )
        for obj in parse_stream(stdout)
    }


def bench_rule_set(root: Path, work: Path, runs: int) -> list[Row]:
    """``ast-grep scan -c CONFIG --json=stream`` vs the ``xcsh scan -c CONFIG --json``
    process (interpreter start-up included), run back to back."""
    config = write_project(work / "rule-set")
    count = len(rule_set())
    cli_times, cli_peak, ours_times, our_peak = [], 0, [], 0
    theirs: set[tuple[str, int, int, str]] = set()
    ours: set[tuple[str, int, int, str]] = set()
    for _ in range(runs):
        timed = run_with_rusage(
            [ast_grep_binary(), "scan", "-c", str(config), "--json=stream", "."], cwd=root
        )
        cli_times.append(timed.seconds)
        cli_peak = max(cli_peak, timed.max_rss_kib)
        theirs = _keys(timed.stdout)
        mine = run_with_rusage(
            [sys.executable, "-m", "xcsh", "scan", "-c", str(config), "--json", "."], cwd=root
        )
        ours_times.append(mine.seconds)
        our_peak = max(our_peak, mine.max_rss_kib)
        ours = _keys(mine.stdout)
    return [
        Row(
            f"scan: {count} rules, one project",
            "xcsh scan vs ast-grep scan",
            ours_times,
            cli_times,
            our_peak,
            cli_peak,
            ours == theirs,
            RULE_SET_GOAL,
            f"{len(theirs)} matches of {len({k[3] for k in theirs})} rules; whole processes "
            f"(median {median(ours_times):.1f} s vs {median(cli_times):.1f} s)",
        )
    ]
