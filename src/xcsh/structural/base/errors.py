"""The structural engine's errors: typed, carrying their facts, worded by each front end.

Every error here is a :class:`~xcsh.core.ToolError` whose text (``str``) is
the wording the ``ast_grep``/``ast_edit`` tools give the model, naming their
parameters (`` `pat` ``, `` `sel` ``, `` `path` ``...). A front end that
names things differently words the same facts with its own
:class:`Wording`: ``xcsh ast-grep``/``ast-edit`` pass theirs (``-p``,
``--selector``, ``PATH``...) to :meth:`StructuralError.worded`.

::

    StructuralError (ToolError)
     ├── EmptyPatterns          no pattern given
     ├── BadLimit               a limit below 1
     ├── EmptyScope             no source file of a known language in scope
     ├── BadGlob                a glob filter that is no glob (an unclosed ``[``)
     ├── MissingPath            the path names nothing in the workspace
     ├── MixedLanguages         one rewrite would change files of several languages
     ├── ScanWorkerDied         a worker process died during a scan
     ├── UnknownNodeKind        the selector names no node kind of the language
     ├── PatternNotUsable       ast-grep refused the pattern (a configuration error)
     └── PatternMatchesNothing  nothing found, and the pattern probably matches nothing
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from xcsh.core import ToolError
from xcsh.core.safe import visible_line
from xcsh.core.wording import name_list


@dataclass(frozen=True, kw_only=True)
class Wording:
    """How a front end names a call's parameters in messages (defaults: the tools').

    Attributes:
        pattern: the pattern parameter (`` `pat` ``, ``-p/--pattern``).
        pattern_short: the same in an example (``pat``, ``-p``).
        selector: the node-kind parameter (`` `sel` ``, ``--selector``).
        selector_short: the same in an example (``sel``, ``--selector``).
        lang: the language parameter.
        path: the file, folder or glob parameter.
        glob: the extra-filter parameter.
        limit: the limit parameter.
    """

    pattern: str = "`pat`"
    pattern_short: str = "pat"
    selector: str = "`sel`"
    selector_short: str = "sel"
    lang: str = "`lang`"
    path: str = "`path`"
    glob: str = "`glob`"
    limit: str = "`limit`"


MODEL_WORDING = Wording()
"""The tools' wording: the text of every error here, as the model reads it."""

CONTEXT_EXAMPLES: dict[str, tuple[str, str]] = {
    "c": ("void t() { printf($$$ARGS); }", "call_expression"),
    "cpp": ("void t() { std::sort($$$ARGS); }", "call_expression"),
    "csharp": ("class T { void M() { Foo($$$ARGS); } }", "invocation_expression"),
    "go": ("func t() { fmt.Println($$$ARGS) }", "call_expression"),
    "java": ("class T { void t() { foo($$$ARGS); } }", "method_invocation"),
    "javascript": ("class T { $M($$$P) { $$$B } }", "method_definition"),
    "python": ("f(key=$V)", "keyword_argument"),
    "rust": ("fn t() { foo($$$ARGS); }", "call_expression"),
    "tsx": ("class T { $M($$$P) { $$$B } }", "method_definition"),
    "typescript": ("class T { $M($$$P) { $$$B } }", "method_definition"),
}
"""Per language, a pattern with context and the selector that picks its part."""


def context_hint(language: str, words: Wording = MODEL_WORDING) -> str:
    """How to give a pattern the context it needs in ``language``, with an example."""
    hint = (
        "Add context: write enough surrounding code for the pattern to parse as one complete "
        f"{language} node, and pick the part to match with {words.selector} (its node kind)"
    )
    example = CONTEXT_EXAMPLES.get(language)
    if example is None:
        return hint + "."
    pat, sel = example
    return f"{hint}, for example {words.pattern_short} `{pat}` with {words.selector_short} `{sel}`."


def error_pattern_note(pattern: str, words: Wording = MODEL_WORDING) -> str:
    """Why a pattern whose tree holds an ERROR node may have found nothing, and the fix."""
    return (
        f"The pattern `{pattern}` does not parse on its own (its tree holds an ERROR "
        "node), so it may not say what it seems to: write the surrounding code "
        f"and pick the node to match with {words.selector}."
    )


DoubtReason = Literal["syntax-error", "not-one-node", "other-kind"]


@dataclass(frozen=True, kw_only=True)
class Doubt:
    """Why a pattern probably matches nothing (reported only when nothing was found).

    Attributes:
        pattern: the pattern as given.
        language: the ast-grep-py language it was compiled for.
        reason: ``syntax-error`` (its tree is an ERROR node no completion of
            its text matches), ``not-one-node`` (it does not parse as one node
            it could match), or ``other-kind`` (the same code inside a function
            parses as another kind).
        own_kind: for ``other-kind``, the kind the pattern parses as alone.
        body_kind: for ``other-kind``, the kind of the same code inside a function.
    """

    pattern: str
    language: str
    reason: DoubtReason
    own_kind: str = ""
    body_kind: str = ""

    def worded(self, words: Wording = MODEL_WORDING) -> str:
        """The doubt and its fix, with the parameters named as ``words`` says."""
        if self.reason == "other-kind":
            head = (
                f"The pattern `{self.pattern}` parses as `{self.own_kind}` on its own, but the "
                f"same code inside a function parses as `{self.body_kind}`, so it probably "
                "matches nothing. "
            )
        else:
            what = (
                "is a syntax error (its tree is an ERROR node that matches no complete code)"
                if self.reason == "syntax-error"
                else "does not parse as one node that it could match"
            )
            head = (
                f"The pattern `{self.pattern}` {what} in {self.language}, so it probably "
                "matches nothing. "
            )
        return head + context_hint(self.language, words)


class StructuralError(ToolError):
    """An engine error carrying its facts; ``str()`` is the tools' wording.

    Subclasses keep their facts as attributes and word them in :meth:`worded`.
    """

    def __init__(self) -> None:
        super().__init__(self.worded(MODEL_WORDING))

    def worded(self, words: Wording) -> str:
        """The message with the parameters named as ``words`` says."""
        raise NotImplementedError

    def __reduce__(self) -> tuple[_Restorer, tuple[type[StructuralError], dict[str, object]]]:
        # The facts, not the message, rebuild the error (copies, worker processes).
        return (_restore, (type(self), dict(vars(self))))


def _restore(cls: type[StructuralError], state: dict[str, object]) -> StructuralError:
    error = cls.__new__(cls)
    error.__dict__.update(state)
    Exception.__init__(error, error.worded(MODEL_WORDING))
    return error


_Restorer = Callable[[type[StructuralError], dict[str, object]], StructuralError]
"""What rebuilds a pickled engine error from its class and facts."""


class EmptyPatterns(StructuralError):
    """A search or edit was given no pattern."""

    def worded(self, words: Wording) -> str:
        """Say the pattern parameter (named as ``words`` says) is empty."""
        return f"{words.pattern} is empty. Give at least one ast-grep pattern."


class BadLimit(StructuralError):
    """A limit below 1.

    Attributes:
        limit: the value given.
        counted: what it counts (``matches``, ``replacements``).
    """

    def __init__(self, limit: int, counted: str) -> None:
        self.limit = limit
        self.counted = counted
        super().__init__()

    def worded(self, words: Wording) -> str:
        """Say the limit (named as ``words`` says) must be positive, with the value given."""
        return f"{words.limit} must be a positive number of {self.counted}; got {self.limit}."


class EmptyScope(StructuralError):
    """No file of a supported language in the scope (without a language asked for).

    Attributes:
        given: the path or glob as given.
    """

    def __init__(self, given: str) -> None:
        self.given = given
        super().__init__()

    def worded(self, words: Wording) -> str:
        """Say the scope holds no supported source file, and which parameters to check."""
        return (
            f"No source file of a supported language in '{self.given}'. "
            f"Check {words.path} and {words.glob}, or pass {words.lang} for files with "
            "unusual extensions."
        )


class BadGlob(StructuralError):
    """A glob filter that cannot be read as a glob.

    Attributes:
        glob: the glob as given.
        why: what is wrong with it (``unclosed character class; missing ']'``).
    """

    def __init__(self, glob: str, why: str) -> None:
        self.glob = glob
        self.why = why
        super().__init__()

    def worded(self, words: Wording) -> str:
        """Name the bad glob and what is wrong with it."""
        return f"Bad glob in {words.glob}: '{visible_line(self.glob)}' ({self.why})."


class NotRegularFile(StructuralError):
    """The path names something that is neither a folder nor a regular file.

    A named pipe, a socket or a device: reading it could block or never end.

    Attributes:
        given: the path as given.
        kind: what it is (``"a named pipe"``).
    """

    def __init__(self, given: str, kind: str) -> None:
        self.given = given
        self.kind = kind
        super().__init__()

    def worded(self, words: Wording) -> str:
        return (
            f"'{self.given}' is not a regular file ({self.kind}); give a source file, "
            "a folder or a glob."
        )


class MissingPath(StructuralError):
    """The path (not a glob) names nothing in the workspace.

    Attributes:
        given: the path as given.
        root: the workspace folder.
    """

    def __init__(self, given: str, root: str) -> None:
        self.given = given
        self.root = root
        super().__init__()

    def worded(self, words: Wording) -> str:
        """Say the path is not in the workspace, and how to give one that is."""
        return (
            f"Path '{self.given}' does not exist in the workspace {self.root}. "
            "Leave the path out to work on the whole workspace, or give an existing file, "
            "folder or a glob such as '**/*.py'."
        )


class MixedLanguages(StructuralError):
    """One rewrite would change files of several languages.

    Attributes:
        files: per language (by name, sorted), the files it would change.
    """

    def __init__(self, files: tuple[tuple[str, tuple[str, ...]], ...]) -> None:
        self.files = files
        super().__init__()

    def worded(self, words: Wording) -> str:
        """Say which files of each language the rewrite would change, and how to pick one."""
        listed = "; ".join(
            f"{name.lower()}: {name_list([visible_line(n) for n in names], 3)}"
            for name, names in self.files
        )
        return (
            f"The rewrite would change files of several languages ({listed}). A rewrite is "
            f"written for one language: pass {words.lang} to pick it, or narrow "
            f"{words.path}/{words.glob}."
        )


class ScanWorkerDied(StructuralError):
    """A worker process died during a scan; nothing was returned.

    Attributes:
        cause: how it died (``killed by signal 11 (SIGSEGV)``).
        files: the files of the chunk it was scanning (may be empty).
    """

    def __init__(self, cause: str, files: tuple[str, ...]) -> None:
        self.cause = cause
        self.files = files
        super().__init__()

    def worded(self, words: Wording) -> str:
        """Say a scan worker died and nothing was returned, and how to leave its files out."""
        where = f" while scanning {name_list(self.files)}" if self.files else ""
        return (
            f"A scan worker process died ({self.cause}){where}; the scan was stopped and "
            f"nothing was returned. Leave these files out with {words.path} or {words.glob} "
            "and try again."
        )


class UnknownNodeKind(StructuralError):
    """The selector names no node kind of the language.

    Attributes:
        selector: the kind given.
        language: the ast-grep-py language.
        close: the pattern's kinds close to ``selector`` (at most 3).
        kinds: every named kind in the pattern, in tree order.
    """

    def __init__(
        self, selector: str, language: str, close: tuple[str, ...], kinds: tuple[str, ...]
    ) -> None:
        self.selector = selector
        self.language = language
        self.close = close
        self.kinds = kinds
        super().__init__()

    def worded(self, words: Wording) -> str:
        """Say the selector is no node kind of the language, with the closest kinds."""
        text = (
            f"`{self.selector}` is not a {self.language} node kind, so {words.selector} "
            "cannot pick it."
        )
        if self.close:
            text += " Did you mean " + " or ".join(f"`{kind}`" for kind in self.close) + "?"
        if self.kinds:
            text += " The node kinds in this pattern are: " + ", ".join(self.kinds) + "."
        return text


class PatternNotUsable(StructuralError):
    """ast-grep refused the pattern itself (a configuration error).

    Attributes:
        pattern: the pattern as given.
        language: the ast-grep-py language.
        cause: ast-grep's explanation.
    """

    def __init__(self, pattern: str, language: str, cause: str) -> None:
        self.pattern = pattern
        self.language = language
        self.cause = cause
        super().__init__()

    def worded(self, words: Wording) -> str:
        """Say why ast-grep refused the pattern, with how to give it context."""
        return (
            f"ast-grep cannot use the pattern `{self.pattern}` for {self.language}: "
            f"{self.cause.rstrip('.')}. " + context_hint(self.language, words)
        )


class PatternMatchesNothing(StructuralError):
    """Nothing was found, and a pattern probably matches nothing: the doubt, and the fix.

    Attributes:
        doubt: why the pattern probably matches nothing.
    """

    def __init__(self, doubt: Doubt) -> None:
        self.doubt = doubt
        super().__init__()

    def worded(self, words: Wording) -> str:
        """The doubt's own message, with the parameters named as ``words`` says."""
        return self.doubt.worded(words)


__all__ = [
    "CONTEXT_EXAMPLES",
    "MODEL_WORDING",
    "BadLimit",
    "Doubt",
    "DoubtReason",
    "EmptyPatterns",
    "EmptyScope",
    "MissingPath",
    "MixedLanguages",
    "PatternMatchesNothing",
    "PatternNotUsable",
    "ScanWorkerDied",
    "StructuralError",
    "UnknownNodeKind",
    "Wording",
    "context_hint",
    "error_pattern_note",
]
