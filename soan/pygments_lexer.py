"""Syntax highlighting for specs (`*.soan`) with Pygments.

Registered as the Pygments plugin `soan` (pyproject.toml, entry point
`pygments.lexers`), so once soan is installed `pygmentize -l soan SPEC` and
any tool built on Pygments (Sphinx, MkDocs, ...) highlight specs.

The keywords are read from the grammar itself (dsl/soan.lark), so a keyword
the language gains is highlighted without touching this file.  The grammar's
quoted words fall into the groups below; every other quoted word is a
statement or clause keyword.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

# Words that open a top-level declaration: a spec's outline.
DECLARATIONS = ("game", "enum", "component", "cards", "zone", "player", "global", "token", "score", "option",
                "assume", "ruling", "def", "procedure", "setup", "rounds", "scoring", "winner", "example", "note",
                "extend", "remove", "invariant", "question", "strategy")
CONSTANTS = ("true", "false", "none", "nothing")
TYPES = ("bool", "card")
OPERATOR_WORDS = ("and", "or", "not", "has", "in")
# `8 x each suit` in a card list: `x` is a keyword only after a count, elsewhere it is a name like any other.
CONTEXTUAL = ("x",)


@lru_cache(maxsize=1)
def grammar_keywords() -> tuple[str, ...]:
    """Every word the grammar spells out in quotes ("setup", "draw", ...), sorted."""
    text = resources.files("soan.dsl").joinpath("soan.lark").read_text(encoding="utf-8")
    # strip comments, so a quoted word in the grammar's prose is not taken for a keyword
    text = "\n".join(line.split("//", 1)[0] for line in text.splitlines())
    found = set(re.findall(r'"([a-z_][a-z0-9_]*)"', text))
    found.add("may")  # the MAY terminal, a keyword spelled as a terminal so a choice can keep it
    return tuple(sorted(found))


def keyword_groups() -> dict[str, tuple[str, ...]]:
    """The grammar's keywords by how they are shown (the TextMate grammar uses the same groups)."""
    kw = set(grammar_keywords())
    grouped = set(DECLARATIONS) | set(CONSTANTS) | set(TYPES) | set(OPERATOR_WORDS) | set(CONTEXTUAL)
    return {
        "declaration": tuple(w for w in DECLARATIONS if w in kw),
        "constant": tuple(w for w in CONSTANTS if w in kw),
        "type": tuple(w for w in TYPES if w in kw),
        "operator": tuple(w for w in OPERATOR_WORDS if w in kw),
        "keyword": tuple(sorted(kw - grouped)),
    }


def _tokens() -> dict:
    g = keyword_groups()
    name = r"[A-Za-z_][A-Za-z0-9_]*"
    return {
        "root": [
            (r"\s+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r'"', String.Double, "string"),
            # the name a declaration introduces, shown as a definition
            (rf"\b(def|procedure)(\s+)({name})", bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (rf"\b(enum|component|zone|token|score|option|assume|ruling|invariant|question)(\s+)({name})",
             bygroups(Keyword.Declaration, Whitespace, Name.Class)),
            (r"(\d+)(\s+)(x)\b", bygroups(Number.Integer, Whitespace, Keyword)),
            (words(g["declaration"], prefix=r"\b", suffix=r"\b"), Keyword.Declaration),
            (words(g["constant"], prefix=r"\b", suffix=r"\b"), Keyword.Constant),
            (words(g["type"], prefix=r"\b", suffix=r"\b"), Keyword.Type),
            (words(g["operator"], prefix=r"\b", suffix=r"\b"), Operator.Word),
            (words(g["keyword"], prefix=r"\b", suffix=r"\b"), Keyword),
            (r"\d+", Number.Integer),
            (name, Name),
            (r"\.\.|==|!=|<=|>=|\+=|-=|//|[-+*%<>=]", Operator),
            (r"[{}()\[\],:.]", Punctuation),
        ],
        "string": [
            (r'\\.', String.Escape),
            (r'[^"\\\n]+', String.Double),
            (r'"', String.Double, "#pop"),
            (r"\n", Text, "#pop"),  # an unterminated string ends at the line's end, as the grammar's does
        ],
    }


class SoanLexer(RegexLexer):
    """Specs in soan's rules language (草案)."""

    name = "soan"
    aliases = ["soan"]
    filenames = ["*.soan"]
    mimetypes = ["text/x-soan"]
    tokens = _tokens()
