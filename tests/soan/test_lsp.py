"""`soan lsp`: a scripted session over stdio, as an editor would hold it."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from soan.langserver import char_col, utf16_col, word_at

ROOT = Path(__file__).resolve().parents[2]
KITANO = ROOT / "specs" / "kitano-20.soan"
# Outer limit for one reply: a hung server fails the test instead of hanging it (never a speed check).
REPLY_LIMIT = 120


class Session:
    """A client speaking JSON-RPC with Content-Length headers to `soan lsp`."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "soan", "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
        self.inbox: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
            body = out.read(int(headers["content-length"]))
            self.inbox.put(json.loads(body))

    def send(self, obj: dict) -> None:
        data = json.dumps({"jsonrpc": "2.0", **obj}).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == self.next_id and "method" not in m)

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def wait(self, want) -> dict:
        while True:
            msg = self.inbox.get(timeout=REPLY_LIMIT)
            assert msg is not None, "the server closed its output: " + self.proc.stderr.read().decode()
            if want(msg):
                return msg

    def close(self) -> int:
        self.request("shutdown", None)
        self.notify("exit", None)
        try:
            return self.proc.wait(timeout=REPLY_LIMIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture
def session():
    s = Session()
    reply = s.request("initialize", {"processId": None, "rootUri": ROOT.as_uri(), "capabilities": {}})
    caps = reply["result"]["capabilities"]
    assert caps["hoverProvider"] and caps["definitionProvider"] and caps["codeActionProvider"]
    s.notify("initialized", {})
    yield s
    if s.proc.poll() is None:
        s.proc.kill()


def _published(session: Session, uri: str) -> list[dict]:
    msg = session.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)
    return msg["params"]["diagnostics"]


def _diagnostics(session: Session, uri: str) -> list[dict]:
    """The errors and warnings published for a document (its rulings' hints left out)."""
    return [d for d in _published(session, uri) if d["severity"] != 4]


def _typo_spec(tmp_path: Path) -> tuple[Path, str, int]:
    """Kitano with the meibutsu component's suit field typed as 'siut'; returns the path, text and the typo's line."""
    text = KITANO.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.strip() == "suit: suit")
    lines[k] = lines[k].replace("suit: suit", "suit: siut")
    spec = tmp_path / "kitano-typo.soan"
    spec.write_text("".join(lines), encoding="utf-8")
    return spec, "".join(lines), k


def test_typo_is_a_diagnostic_at_its_range_with_the_hint(session, tmp_path):
    """Opening a spec with a misspelt name publishes one error at exactly the misspelt word, with the check's hint."""
    spec, text, k = _typo_spec(tmp_path)
    uri = spec.as_uri()
    session.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "soan", "version": 1,
                                                             "text": text}})
    diags = _diagnostics(session, uri)
    assert len(diags) == 1, diags
    d = diags[0]
    col = text.splitlines()[k].index("siut")
    assert d["range"] == {"start": {"line": k, "character": col}, "end": {"line": k, "character": col + 4}}
    assert d["severity"] == 1 and "siut" in d["message"] and "did you mean 'suit'?" in d["message"]
    assert d["source"] == "soan check"
    # the hint's name is offered as a quick fix that replaces exactly the misspelt word
    reply = session.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": d["range"],
                                                         "context": {"diagnostics": diags}})
    [fix] = reply["result"]
    assert fix["title"] == "Change 'siut' to 'suit'" and fix["kind"] == "quickfix"
    assert fix["edit"]["changes"][uri] == [{"range": d["range"], "newText": "suit"}]
    # fixing the typo in the editor clears the diagnostic, before any save
    session.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                              "contentChanges": [{"text": text.replace("suit: siut", "suit: suit")}]})
    assert _diagnostics(session, uri) == []
    assert session.close() == 0


def test_every_problem_of_a_spec_is_reported_at_once(session, tmp_path):
    """Two mistakes in different declarations give two diagnostics in one publication, each on its own line."""
    spec, text, k = _typo_spec(tmp_path)
    lines = text.splitlines(keepends=True)
    j = next(i for i, line in enumerate(lines) if line.startswith("token anger"))
    lines[j] = lines[j].replace("when short ruling anger_shortage", "when short ruling anger_shortgae")
    text = "".join(lines)
    uri = spec.as_uri()
    session.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "soan", "version": 1,
                                                             "text": text}})
    diags = _diagnostics(session, uri)
    assert sorted(d["range"]["start"]["line"] for d in diags) == [k, j]
    assert any("did you mean 'anger_shortage'?" in d["message"] for d in diags)


def test_open_rulings_are_hints_on_their_names(session):
    """A spec that checks gets one hint per open ruling, on the ruling's name, with its value and what it affects."""
    text = KITANO.read_text(encoding="utf-8")
    uri = KITANO.as_uri()
    session.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "soan", "version": 1,
                                                             "text": text}})
    hints = [d for d in _published(session, uri) if d["severity"] == 4]
    lines = text.splitlines()
    rulings = [i for i, line in enumerate(lines) if line.startswith("ruling ")]
    assert sorted(d["range"]["start"]["line"] for d in hints) == rulings
    k = next(i for i in rulings if lines[i].startswith("ruling anger_shortage"))
    [h] = [d for d in hints if d["range"]["start"]["line"] == k]
    assert h["range"]["start"]["character"] == len("ruling ") and h["range"]["end"]["character"] == len("ruling anger_shortage")
    assert h["message"].startswith("open ruling: runs at unlimited (of {partial, unlimited}); affects: token anger")


def test_hover_shows_declaration_and_draft_citation(session):
    """Hovering a ruling's name where it is used shows its declaration line, its question and the draft section it cites."""
    text = KITANO.read_text(encoding="utf-8")
    uri = KITANO.as_uri()
    session.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "soan", "version": 1,
                                                             "text": text}})
    assert _diagnostics(session, uri) == []
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("token anger"))
    col = lines[k].index("anger_shortage")
    reply = session.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                   "position": {"line": k, "character": col + 3}})
    value = reply["result"]["contents"]["value"]
    assert "**anger_shortage**: open ruling" in value
    assert "ruling anger_shortage: {partial, unlimited} = unlimited" in value
    assert "draft: ■ コンポーネント / ■ 茶会" in value
    # a field declared in a component: its kind names the component, and the section heading it stands under
    j = next(i for i, line in enumerate(lines) if "state slot: 0..30" in line)
    reply = session.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                   "position": {"line": j, "character": lines[j].index("slot")}})
    value = reply["result"]["contents"]["value"]
    assert "state field of meibutsu" in value and "■ コンポーネント" in value
    # nothing to say inside a comment
    reply = session.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                   "position": {"line": 0, "character": 4}})
    assert reply["result"] is None


def test_definition_goes_to_the_declaration(session):
    """Go to definition on a procedure's use and an enum value lands on the name where it is declared."""
    text = KITANO.read_text(encoding="utf-8")
    uri = KITANO.as_uri()
    session.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "soan", "version": 1,
                                                             "text": text}})
    _diagnostics(session, uri)
    lines = text.splitlines()
    use = next(i for i, line in enumerate(lines) if "do resolve_action" in line)
    decl = next(i for i, line in enumerate(lines) if line.startswith("procedure resolve_action"))
    reply = session.request("textDocument/definition", {
        "textDocument": {"uri": uri}, "position": {"line": use, "character": lines[use].index("resolve_action") + 2}})
    [loc] = reply["result"]
    start = lines[decl].index("resolve_action")
    assert loc["uri"] == uri
    assert loc["range"] == {"start": {"line": decl, "character": start},
                            "end": {"line": decl, "character": start + len("resolve_action")}}
    enum_line = next(i for i, line in enumerate(lines) if line.startswith("enum suit"))
    use = next(i for i, line in enumerate(lines) if "== chasen" in line)
    reply = session.request("textDocument/definition", {
        "textDocument": {"uri": uri}, "position": {"line": use, "character": lines[use].index("chasen")}})
    [loc] = reply["result"]
    assert loc["range"]["start"] == {"line": enum_line, "character": lines[enum_line].index("chasen")}


def test_extended_spec_goes_to_the_base_file(session, tmp_path):
    """In a draft that extends another, a name declared only in the base goes to the base file."""
    base = tmp_path / "base.soan"
    base.write_text(KITANO.read_text(encoding="utf-8"), encoding="utf-8")
    text = 'extend "base.soan"\ngame "Kitano" draft 21 players 3..4\nnote "uses anger_shortage as it was"\n' \
           'invariant calm "never short" : supply(anger) >= 0\n'
    child = tmp_path / "child.soan"
    child.write_text(text, encoding="utf-8")
    uri = child.as_uri()
    session.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "soan", "version": 1,
                                                             "text": text}})
    assert _diagnostics(session, uri) == []
    reply = session.request("textDocument/definition", {
        "textDocument": {"uri": uri}, "position": {"line": 3, "character": text.splitlines()[3].index("anger)") + 1}})
    [loc] = reply["result"]
    assert loc["uri"] == base.resolve().as_uri()
    assert base.read_text(encoding="utf-8").splitlines()[loc["range"]["start"]["line"]].startswith("token anger")


def test_columns_count_utf16_units_and_skip_strings():
    """Columns convert between characters and UTF-16 units (a character outside the BMP takes two), and a word inside a string is no name."""
    line = 'zone x "𝄞 deck": shared'
    assert utf16_col(line, 10) == 11 and char_col(line, 11) == 10
    assert word_at(line, line.index("deck") + 1) is None
    assert word_at(line, line.index("shared")) == "shared"
    assert word_at("set a = b  # note", 15) is None


def test_quick_fix_only_where_the_range_is_the_name():
    """A 'did you mean' hint becomes a quick fix only when the diagnostic covers exactly one name."""
    from lsprotocol import types

    from soan.langserver import quick_fixes

    text = "setup { award 1 to players[0] for pv }\n"
    rng = lambda a, b: types.Range(start=types.Position(line=0, character=a), end=types.Position(line=0, character=b))  # noqa: E731
    whole = types.Diagnostic(range=rng(8, 38), message="unknown score item 'pv'\nhint: did you mean 'vp'?")
    name = types.Diagnostic(range=rng(34, 36), message="unknown score item 'pv'\nhint: did you mean 'vp'?")
    no_hint = types.Diagnostic(range=rng(34, 36), message="unknown score item 'pv'\nhint: declare it")
    fixes = quick_fixes(text, "file:///t.soan", [whole, name, no_hint])
    assert [f.title for f in fixes] == ["Change 'pv' to 'vp'"]
    assert fixes[0].edit.changes["file:///t.soan"][0].range == rng(34, 36)


def test_a_malformed_message_is_logged_in_one_line_and_skipped():
    """A message that is not JSON gets one log line on stderr (no traceback); the next request is answered."""
    s = Session()
    s.proc.stdin.write(b"Content-Length: 9\r\n\r\n{not json")
    s.proc.stdin.flush()
    reply = s.request("initialize", {"processId": None, "capabilities": {}})
    assert reply["result"]["capabilities"]["hoverProvider"]
    assert s.close() == 0
    err = s.proc.stderr.read().decode()
    assert "soan lsp: ERROR" in err and "Traceback" not in err


def test_a_burst_of_edits_ends_with_the_last_texts_diagnostics(session, tmp_path):
    """After several quick edits, the diagnostics published for the last version are the last text's own."""
    spec, text, k = _typo_spec(tmp_path)
    uri = spec.as_uri()
    good = text.replace("suit: siut", "suit: suit")
    session.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "soan", "version": 1,
                                                             "text": good}})
    for version, body in enumerate([text, good, text, text.replace("siut", "sut")], start=2):
        session.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                  "contentChanges": [{"text": body}]})
    msg = session.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                       and m["params"]["uri"] == uri and m["params"].get("version") == 5)
    [d] = [d for d in msg["params"]["diagnostics"] if d["severity"] == 1]
    assert "unknown domain 'sut'" in d["message"]
