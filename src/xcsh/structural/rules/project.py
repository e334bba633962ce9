"""A project's ``sgconfig.yml``, as ``ast-grep scan`` reads it.

It names the rule files of its ``ruleDirs``, with the shared utility rules of its
``utilDirs``: the configuration and the utility rules are read here, each rule file
through the rule pipeline (:func:`~xcsh.structural.rules.compile.parse_rules`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from xcsh.fs import read_regular_bytes
from xcsh.structural.base.languages import resolve_language
from xcsh.structural.rules import loader
from xcsh.structural.rules.compile import CompiledRule, based, parse_rules
from xcsh.structural.rules.model import RuleObject
from xcsh.structural.rules.prune import drop_unknown_keys
from xcsh.structural.rules.read import not_yaml
from xcsh.structural.rules.schema import RuleError, RuleWarning, parse_rule, yaml_path
from xcsh.structural.rules.validate import check_utility


@dataclass(frozen=True, kw_only=True)
class Project:
    """A project's ``sgconfig.yml``: its folder and its rules."""

    root: Path
    config: Path
    rules: list[CompiledRule]


def find_config(start: Path) -> Path | None:
    """The nearest ``sgconfig.yml`` (or ``.yaml``) at or above ``start``."""
    for folder in (start, *start.parents):
        for name in ("sgconfig.yml", "sgconfig.yaml"):
            candidate = folder / name
            if candidate.is_file():
                return candidate
    return None


def load_project(
    config: Path, *, strict: bool = True, warnings: list[RuleWarning] | None = None
) -> Project:
    """Load ``sgconfig.yml``: the rules of ``ruleDirs``, with the utilities of ``utilDirs``.

    ``strict`` and ``warnings`` are as for :func:`xcsh.structural.rules.parse_rules`;
    rule ids must differ across the project, as ``ast-grep scan`` requires.

    Raises:
        RuleError: a bad configuration, a missing folder, a bad rule (named), or two
            rules sharing an id (a folder listed twice gives each of its rules twice).
    """
    origin = config.name
    try:
        data = loader.load(read_regular_bytes(config).decode("utf-8")) or {}
    except yaml.YAMLError as exc:
        raise RuleError(origin, "", not_yaml(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleError(origin, "", f"cannot read the project configuration: {exc}.") from None
    sgconfig = read_sgconfig(data, origin)
    root = config.parent
    utils = _utilities(root, sgconfig.util_dirs, origin)
    rules: list[CompiledRule] = []
    found: list[RuleWarning] = []
    seen: dict[str, str] = {}  # a rule id -> the file that holds it
    for index, folder in enumerate(sgconfig.rule_dirs):
        for file in _yaml_files(root / folder, origin, yaml_path("ruleDirs", index)):
            shown = file.relative_to(root).as_posix()
            try:
                text = read_regular_bytes(file).decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise RuleError(shown, "", f"cannot read the rule file: {exc}.") from None
            parsed = parse_rules(
                text, origin=shown, global_utils=utils, strict=strict, warnings=found
            )
            for compiled in parsed:  # a folder listed twice gives its files twice
                if compiled.id in seen:
                    raise _shared_id(compiled.id, seen[compiled.id], shown)
                seen[compiled.id] = shown
            rules += parsed
    if warnings is not None:
        warnings += found
    return Project(root=root, config=config, rules=based(rules, root))


def _utilities(root: Path, folders: Sequence[str], origin: str) -> dict[str, dict[str, RuleObject]]:
    """The shared utility rules of the ``utilDirs`` ``folders``: language -> id -> rule.

    Raises:
        RuleError: a file that cannot be read, is not valid YAML, holds more than one
            document or a bad utility rule (named by its path below ``root``).
    """
    utils: dict[str, dict[str, RuleObject]] = {}
    files: dict[tuple[str, str], str] = {}  # (language, id) -> the file that holds it
    for index, folder in enumerate(folders):
        for file in _yaml_files(root / folder, origin, yaml_path("utilDirs", index)):
            shown = file.relative_to(root).as_posix()
            try:
                documents = loader.load_all_at(read_regular_bytes(file).decode("utf-8"))
            except yaml.YAMLError as exc:
                raise RuleError(shown, "", not_yaml(exc)) from None
            except (OSError, UnicodeDecodeError) as exc:
                raise RuleError(shown, "", f"cannot read the utility rule: {exc}.") from None
            if len(documents) > 1:
                raise _many_utils(shown, documents[1][0])
            for _, document in documents:
                if document:
                    language, uid, rule = util_rule(document, shown)
                    utils.setdefault(language, {})[uid] = rule
                    files[language, uid] = shown
    for (language, uid), shown in files.items():  # ast-grep checks each, used or not
        check_utility(utils[language][uid], utils[language], language, shown)
    return utils


def _many_utils(shown: str, line: int) -> RuleError:
    """The error for a ``utilDirs`` file of several YAML documents (ast-grep refuses it)."""
    return RuleError(
        shown,
        "",
        f"a second YAML document starts at line {line}: a utility rule file holds one rule, "
        "as ast-grep requires (a `---` ends the first, even with nothing after it). Put "
        "each utility rule in a file of its own.",
    )


def _shared_id(rule_id: str, first: str, again: str) -> RuleError:
    """The error for two rules of a project sharing ``rule_id`` (``ast-grep scan`` refuses it)."""
    where = "twice in the project's rules" if first == again else f"in {first} too"
    return RuleError(
        again,
        "id",
        f"the id `{rule_id}` is {where}: rules of a project need ids of their own, as "
        "ast-grep scan requires (a folder listed twice in ruleDirs gives each of its rules "
        "twice). Give each rule its own id.",
    )


def _yaml_files(folder: Path, origin: str, where: str) -> list[Path]:
    if not folder.is_dir():
        raise RuleError(origin, where, f"the folder '{folder}' does not exist.")
    return sorted(p for p in folder.rglob("*") if p.suffix in (".yml", ".yaml") and p.is_file())


def util_rule(document: object, shown: str) -> tuple[str, str, RuleObject]:
    """A project's shared utility rule: its language, id and rule.

    ``document`` is one of a ``utilDirs`` file named ``shown``; the keys ast-grep
    ignores inside its rule are left out, silently, as ast-grep does.

    Raises:
        RuleError: no ``id``, ``language`` or ``rule``, an unknown language or a bad rule.
    """
    if not isinstance(document, dict) or "id" not in document or "rule" not in document:
        raise RuleError(shown, "", "a utility rule needs `id`, `language` and `rule`.")
    language = resolve_language(str(document.get("language", ""))).name
    pruned, _ = drop_unknown_keys({"rule": document["rule"]}, shown)
    return language, str(document["id"]), parse_rule(pruned["rule"], "rule", shown)


SGCONFIG_KEYS = (
    "ruleDirs",
    "utilDirs",
    "testConfigs",
    "languageGlobs",
    "customLanguages",
    "languageInjections",
)
"""The keys of ``sgconfig.yml``."""


@dataclass(frozen=True, kw_only=True)
class SgConfig:
    """What xcsh reads of ``sgconfig.yml``: the folders of rule files and of utility rules."""

    rule_dirs: tuple[str, ...]
    util_dirs: tuple[str, ...] = ()


def read_sgconfig(data: object, origin: str) -> SgConfig:
    """A parsed ``sgconfig.yml`` (named ``origin`` in messages), checked.

    Raises:
        RuleError: not a mapping, an unknown key, custom languages, or no ``ruleDirs``.
    """
    if not isinstance(data, dict):
        raise RuleError(origin, "", "the configuration must be a mapping with `ruleDirs`.")
    for key in data:
        if key not in SGCONFIG_KEYS:
            raise RuleError(
                origin, str(key), f"unknown key. sgconfig.yml takes: {', '.join(SGCONFIG_KEYS)}."
            )
    if data.get("customLanguages"):
        raise RuleError(
            origin,
            "customLanguages",
            "custom languages (native libraries) are not supported by xcsh; remove them "
            "or run the ast-grep CLI for those rules.",
        )
    rule_dirs = _folders(data, "ruleDirs", origin)
    if not rule_dirs:
        raise RuleError(origin, "ruleDirs", "missing: list the folders holding rule files.")
    return SgConfig(rule_dirs=rule_dirs, util_dirs=_folders(data, "utilDirs", origin))


def _folders(data: Mapping[object, object], key: str, origin: str) -> tuple[str, ...]:
    """``ruleDirs`` or ``utilDirs``: a list of folders (``()`` when absent).

    Raises:
        RuleError: anything else, a single folder not in a list included, as
            ``ast-grep scan`` refuses it.
    """
    value = data.get(key)
    if value is None:
        return ()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    folder = value if isinstance(value, str) else ("rules" if key == "ruleDirs" else "utils")
    example = f"`{key}: [{folder}]`"
    raise RuleError(origin, key, f"must be a list of folders, as ast-grep reads it: {example}.")
