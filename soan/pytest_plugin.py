"""pytest collects specs: every example of every .soan file, and every
.playthrough file, is a test item named after it.

Registered as the `soan` pytest11 entry point, so `pytest specs/` (or any
folder) runs a draft's worked examples and playthroughs; `-k` selects by the
example's title, `-x` stops at the first failure, and a failure is reported
with the spec's own located message (file:line:col, the line, a caret, a hint).
"""

from __future__ import annotations

import pytest

from soan.dsl import load_spec
from soan.dsl.errors import SpecErrors
from soan.interpreter.examples import run_example
from soan.interpreter.playthrough import SUFFIX


def pytest_collect_file(file_path, parent):
    if file_path.suffix == ".soan":
        return SpecFile.from_parent(parent, path=file_path)
    if file_path.name.endswith(SUFFIX):
        return PlaythroughFile.from_parent(parent, path=file_path)
    return None


class SoanFailure(Exception):
    """A failure told in the spec's own words."""


class SpecFile(pytest.File):
    def collect(self):
        try:
            spec = load_spec(self.path)
        except SpecErrors as e:
            yield SpecProblemItem.from_parent(self, name="the spec checks", message=e.render())
            return
        for ex in spec.examples:
            yield ExampleItem.from_parent(self, name=ex.name, spec=spec, example=ex)


class _SoanItem(pytest.Item):
    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, SoanFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class SpecProblemItem(_SoanItem):
    def __init__(self, *, message: str, **kw):
        super().__init__(**kw)
        self.message = message

    def runtest(self):
        raise SoanFailure(self.message)

    def reportinfo(self):
        return self.path, 0, f"spec {self.path.name}"


class ExampleItem(_SoanItem):
    def __init__(self, *, spec, example, **kw):
        super().__init__(**kw)
        self.spec, self.example = spec, example

    def runtest(self):
        result = run_example(self.spec, self.example)
        if not result.passed:
            raise SoanFailure(f"example '{result.title}' failed:\n{result.render(self.spec)}")

    def reportinfo(self):
        return self.path, max(self.example.span.line - 1, 0), f"example: {self.name}"


class PlaythroughFile(pytest.File):
    def collect(self):
        yield PlaythroughItem.from_parent(self, name=self.path.name[: -len(SUFFIX)])


class PlaythroughItem(_SoanItem):
    def runtest(self):
        from soan.record import rerun

        r = rerun(self.path)
        if not r.passed:
            raise SoanFailure(r.message)

    def reportinfo(self):
        return self.path, 0, f"playthrough: {self.name}"
