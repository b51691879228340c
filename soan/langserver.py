"""The language server behind `soan lsp`: a spec's problems as diagnostics
while it is typed, hover for a name's declaration and draft citation, and go
to definition.

What it knows about a spec comes from the same places as `soan check`: the
diagnostics are the located problems (with their hints) that checking the
text reports, all of them in one pass; names are read from the parsed
declarations (dsl.compiler.gather_items), which survive a problem elsewhere
in the spec, so hover and definition keep working while a typo is being
fixed.  A spec that extends another knows the base's names too, and goes to
definition in the base file.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import attrs
from lsprotocol import types
from pygls.lsp.server import LanguageServer

from soan.dsl import ir
from soan.dsl.compiler import compile_text, gather_items
from soan.dsl.errors import SpecErrors

from . import __version__

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SECTION_COMMENT = re.compile(r"^\s*#\s*-{2,}\s*(.*?)\s*-*\s*$")
MAX_SHOWN = 400  # characters of a declaration's source line shown in a hover


@attrs.frozen
class Declaration:
    """Where a name is declared, and what a hover says about it."""

    name: str
    kind: str  # in the designer's words: "ruling", "field of COMPONENT", "value of ENUM", ...
    path: str
    line: int  # 1-based, as spans are
    col: int
    end_col: int
    source: str  # the declaration's line as written
    text: str | None = None  # a title, a ruling's question, an assumption's text
    cite: str | None = None  # the draft's section it cites, or the section heading it stands under


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    return uri  # an unsaved buffer ("untitled:..."): its name is all there is


def path_to_uri(path: str) -> str:
    return Path(path).resolve().as_uri()


# ---- positions: specs count characters, the protocol counts UTF-16 code units --------------------------


def utf16_col(line_text: str, char_col: int) -> int:
    """The UTF-16 column of the character column `char_col` (0-based) of a line."""
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in line_text[:char_col])


def char_col(line_text: str, u16_col: int) -> int:
    """The character column of a UTF-16 column (0-based)."""
    units = 0
    for i, ch in enumerate(line_text):
        if units >= u16_col:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line_text)


def _range(lines: list[str], line: int, col: int, end_line: int, end_col: int) -> types.Range:
    """A protocol range from 1-based spec positions (a missing end covers the word at the start)."""
    line0 = max(line - 1, 0)
    text = lines[line0] if line0 < len(lines) else ""
    c0 = max(col - 1, 0)
    if end_line < line or (end_line == line and end_col <= col):
        m = WORD.match(text, c0)
        end_line, end_col = line, (m.end() if m else c0 + 1) + 1
    end0 = max(end_line - 1, 0)
    end_text = lines[end0] if end0 < len(lines) else ""
    return types.Range(start=types.Position(line=line0, character=utf16_col(text, c0)),
                       end=types.Position(line=end0, character=utf16_col(end_text, max(end_col - 1, 0))))


# ---- diagnostics ------------------------------------------------------------------------------------


def diagnostics(text: str, path: str) -> list[types.Diagnostic]:
    """Every problem checking the text finds, as it would print under `soan check` (the hint included)."""
    try:
        spec = compile_text(text, path)
    except SpecErrors as e:
        problems = e.problems
    else:
        return ruling_hints(spec, text, path)
    lines = text.splitlines()
    out = []
    extend_at = next((i for i, line in enumerate(lines) if line.lstrip().startswith("extend ")), 0)
    for p in problems:
        message = p.message + (f"\nhint: {p.hint}" if p.hint else "")
        if p.path and Path(p.path).resolve() != Path(path).resolve():
            # a problem in the base spec: shown on the extend line, naming where it is
            message = f"{p.path}:{p.span.line}:{p.span.col}: {message}"
            rng = types.Range(start=types.Position(line=extend_at, character=0),
                              end=types.Position(line=extend_at, character=len(lines[extend_at]) if lines else 0))
        elif p.span.line <= 0:
            rng = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
        else:
            rng = _range(lines, p.span.line, p.span.col, p.span.end_line, p.span.end_col)
        severity = types.DiagnosticSeverity.Warning if p.severity == "warning" else types.DiagnosticSeverity.Error
        out.append(types.Diagnostic(range=rng, message=message, severity=severity, source="soan check"))
    return out


def ruling_hints(spec: ir.Spec, text: str, path: str) -> list[types.Diagnostic]:
    """What `soan check` lists besides problems, as hints on the names: each open ruling (decided before
    printing), and a valued assumption no rule reads."""
    from .api import check_report

    report = check_report(spec)
    here = Path(path).resolve()
    spans = {d.name: d.span for d in (*spec.rulings, *spec.assumptions)}
    lines = text.splitlines()
    out = []

    def hint(name: str, message: str) -> None:
        span = spans.get(name)
        if span is None or span.line <= 0 or (span.path and Path(span.path).resolve() != here):
            return  # declared in the base spec: hinted there
        out.append(types.Diagnostic(range=_range(lines, span.line, span.col, span.end_line, span.end_col),
                                    message=message, severity=types.DiagnosticSeverity.Hint, source="soan check"))

    for r in report["rulings"]:
        hint(r["name"], f"open ruling: runs at {r['provisional']} (of {r['domain']}); affects: "
                        + (", ".join(r["affects"]) or "nothing the engine runs")
                        + "; soan rulings shows whether another resolution changes games")
    for a in report["assumptions"]:
        if a["value"] is not None and not a["read_by"]:
            hint(a["name"], f"assumption = {a['value']} affects nothing the engine runs (it documents the spec)")
    return out


# ---- the names a spec declares ------------------------------------------------------------------------


def _section(lines: list[str], line: int) -> str | None:
    """The heading comment (`# ---- components (■ コンポーネント) ----`) a line stands under."""
    for k in range(min(line, len(lines)) - 1, -1, -1):
        m = SECTION_COMMENT.match(lines[k])
        if m and m.group(1):
            return m.group(1)
    return None


def _values_after(lines: list[str], line: int, col: int, values) -> list[tuple[str, int, int]]:
    """Where each of an enum's (or inline domain's) values is written after its name: (value, line, col)."""
    found = []
    for v in values:
        for k in range(line - 1, min(line + 20, len(lines))):  # a long enum may run over a few lines
            start = col - 1 if k == line - 1 else 0
            m = re.search(rf"(?<![A-Za-z0-9_]){re.escape(v)}(?![A-Za-z0-9_])", lines[k][start:])
            if m:
                found.append((v, k + 1, start + m.start() + 1))
                break
    return found


STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
SHOWN_STRING = 48  # characters of a long string kept in the hover's code line; the whole text follows it


def _short_strings(line: str) -> str:
    """The declaration's line with its long strings cut, since the hover shows their text in full below."""
    return STRING.sub(lambda m: m.group(0) if len(m.group(0)) <= SHOWN_STRING
                      else m.group(0)[:SHOWN_STRING - 2] + '…"', line)


def declarations(text: str, path: str) -> list[Declaration]:
    """Every name the spec (and what it extends) declares, with where and what."""
    items, _problems, sources, _base = gather_items(text, path)
    lines_of = {p: t.splitlines() for p, t in sources.items()}
    out: list[Declaration] = []

    def add(name, kind, span: ir.Span, text_=None, cite=None):
        where = span.path or path
        lines = lines_of.get(where, [])
        src = _short_strings(lines[span.line - 1].strip()) if 0 < span.line <= len(lines) else ""
        end = span.end_col if span.end_line == span.line and span.end_col > span.col else span.col + len(name)
        out.append(Declaration(name, kind, where, span.line, span.col, end, src[:MAX_SHOWN], text_,
                               cite or _section(lines, span.line)))

    def add_values(owner: str, span: ir.Span, domain) -> None:
        values = getattr(domain, "values", ())
        if not values:
            return
        where = span.path or path
        for v, line, col in _values_after(lines_of.get(where, []), span.line, span.col, values):
            add(v, f"value of {owner}", ir.Span(line, col, line, col + len(v), where))

    for kind, v in items:
        if kind == "enum":
            add(v.name, "enum", v.span, v.title)
            add_values(v.name, v.span, v)
        elif kind == "component":
            add(v.name, "component", v.span, v.title)
            for f in v.fields:
                add(f.name, f"{'state ' if f.is_state else ''}field of {v.name}", f.span)
        elif kind == "zone":
            name, title, _words, _cap, span = v
            add(name, "zone", span, title)
        elif kind == "token":
            name, title, *_rest, span = v
            add(name, "token", span, title)
        elif kind == "var":
            add(v.name, "player variable" if v.per_player else "table variable", v.span, v.title)
        elif kind == "score":
            add(v.name, "scoring item", v.span, v.title)
        elif kind == "option":
            add(v.name, "optional rule", v.span, v.title, v.cite)
        elif kind == "assume":
            add(v.name, "assumption", v.span, v.text, v.cite)
            add_values(v.name, v.span, v.domain)
        elif kind == "ruling":
            add(v.name, "open ruling", v.span, v.question, v.cite)
            add_values(v.name, v.span, v.domain)
        elif kind in ("def", "procedure"):
            add(v.name, kind + (f"({', '.join(v.params)})" if v.params else ""), v.span)
        elif kind == "question":
            add(v.name, "invariant" if v.kind == "invariant" else "question", v.span, v.text)
        if kind in ("setup", "rounds", "scoring", "procedure"):
            for node in ir.walk(v):
                if isinstance(node, ir.Phase):
                    _add_phase(node, add, lines_of, path)
    return out


def _add_phase(node, add, lines_of, path) -> None:
    where = node.span.path or path
    lines = lines_of.get(where, [])
    if not 0 < node.span.line <= len(lines):
        return
    m = re.search(rf"\bphase\s+({re.escape(node.name)})\b", lines[node.span.line - 1])
    col = m.start(1) + 1 if m else node.span.col
    add(node.name, "phase", ir.Span(node.span.line, col, node.span.line, col + len(node.name), where), node.title)


def word_at(line_text: str, col: int) -> str | None:
    """The name under the cursor (`col` in characters, 0-based); none inside a comment or a string."""
    code = _code_part(line_text)
    for m in WORD.finditer(code):
        if m.start() <= col <= m.end():
            return m.group(0)
    return None


def _code_part(line_text: str) -> str:
    """The line with strings and the comment blanked out (same length up to the comment)."""
    out, in_string, k = [], False, 0
    while k < len(line_text):
        ch = line_text[k]
        if in_string:
            if ch == "\\":
                out.append("  ")
                k += 2
                continue
            in_string = ch != '"'
            out.append(" ")
        elif ch == '"':
            in_string = True
            out.append(" ")
        elif ch == "#":
            break
        else:
            out.append(ch)
        k += 1
    return "".join(out)


def hover_text(decls: list[Declaration], here: str) -> str:
    parts = []
    for d in decls:
        where = "" if Path(d.path).resolve() == Path(here).resolve() else f" in {Path(d.path).name}"
        block = [f"**{d.name}**: {d.kind}{where}, line {d.line}", "", "```soan", d.source, "```"]
        if d.text:
            block += ["", d.text]
        if d.cite:
            block += ["", f"draft: {d.cite}"]
        parts.append("\n".join(block))
    return "\n\n---\n\n".join(parts)


# ---- the server -------------------------------------------------------------------------------------

TYPING_PAUSE = 0.25  # seconds after an edit before it is checked: a burst of keystrokes is checked once


def analyse(text: str, path: str) -> tuple[list[types.Diagnostic], list[Declaration]]:
    """Everything the server learns from one text: its diagnostics and the names it declares."""
    return diagnostics(text, path), declarations(text, path)



class SpecServer(LanguageServer):
    def __init__(self):
        super().__init__("soan", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.index: dict[str, list[Declaration]] = {}  # uri -> the names of the last text that parsed at all
        self.open: set[str] = set()
        # one check at a time, in order, off the event loop
        self.checker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="soan-check")

    async def refresh(self, uri: str, wait: float = 0.0) -> None:
        """Check the document and publish what checking finds.  Checking a long spec takes a moment, so it
        runs off the event loop (hover and definition keep answering from the last names known), after
        `wait` seconds in which a newer edit makes this one's check unnecessary."""
        version = self.workspace.get_text_document(uri).version
        if wait:
            await asyncio.sleep(wait)
        doc = self.workspace.get_text_document(uri)
        if doc.version != version:
            return  # typed on since: that edit's own refresh checks the newer text
        path = uri_to_path(uri)
        found_diags, found = await asyncio.get_running_loop().run_in_executor(self.checker, analyse, doc.source, path)
        if uri not in self.open or self.workspace.get_text_document(uri).version != version:
            return
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=found_diags))
        if found or uri not in self.index:  # a half-typed first line keeps the names known a moment ago
            self.index[uri] = found

    def lookup(self, uri: str, pos: types.Position) -> list[Declaration]:
        doc = self.workspace.get_text_document(uri)
        lines = doc.source.splitlines()
        if pos.line >= len(lines):
            return []
        line = lines[pos.line]
        name = word_at(line, char_col(line, pos.character))
        if name is None:
            return []
        return [d for d in self.index.get(uri, []) if d.name == name]


def make_server() -> SpecServer:
    server = SpecServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: SpecServer, params: types.DidOpenTextDocumentParams):
        ls.open.add(params.text_document.uri)
        await ls.refresh(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: SpecServer, params: types.DidChangeTextDocumentParams):
        await ls.refresh(params.text_document.uri, wait=TYPING_PAUSE)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: SpecServer, params: types.DidSaveTextDocumentParams):
        await ls.refresh(params.text_document.uri)  # a base spec saved elsewhere may change what this one says

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: SpecServer, params: types.DidCloseTextDocumentParams):
        ls.open.discard(params.text_document.uri)
        ls.index.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: SpecServer, params: types.HoverParams):
        found = ls.lookup(params.text_document.uri, params.position)
        if not found:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                        value=hover_text(found, uri_to_path(params.text_document.uri))))

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: SpecServer, params: types.DefinitionParams):
        found = ls.lookup(params.text_document.uri, params.position)
        out = []
        for d in found:
            uri = params.text_document.uri if d.path == uri_to_path(params.text_document.uri) else path_to_uri(d.path)
            lines = (ls.workspace.get_text_document(uri).source if uri == params.text_document.uri
                     else Path(d.path).read_text(encoding="utf-8")).splitlines()
            out.append(types.Location(uri=uri, range=_range(lines, d.line, d.col, d.line, d.end_col)))
        return out or None

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_action(ls: SpecServer, params: types.CodeActionParams):
        doc = ls.workspace.get_text_document(params.text_document.uri)
        return quick_fixes(doc.source, params.text_document.uri, params.context.diagnostics) or None

    return server


HINT_NAME = re.compile(r"hint: did you mean '([A-Za-z_][A-Za-z0-9_]*)'\?")


def quick_fixes(text: str, uri: str, diags: list[types.Diagnostic]) -> list[types.CodeAction]:
    """'Change to X' for each diagnostic whose hint names the nearest known name, where the diagnostic
    covers exactly one name on one line (a range over a whole statement is left to the designer)."""
    lines = text.splitlines()
    out = []
    for d in diags:
        m = HINT_NAME.search(d.message)
        r = d.range
        if not m or r.start.line != r.end.line or r.start.line >= len(lines):
            continue
        line = lines[r.start.line]
        word = line[char_col(line, r.start.character):char_col(line, r.end.character)]
        if not WORD.fullmatch(word):
            continue
        out.append(types.CodeAction(
            title=f"Change '{word}' to '{m.group(1)}'", kind=types.CodeActionKind.QuickFix, diagnostics=[d],
            is_preferred=True,
            edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(range=r, new_text=m.group(1))]})))
    return out
