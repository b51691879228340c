"""soan (草案): write board-game drafts as specs; parse, play, compare and prove things about them.

The subpackages soan.dsl, soan.interpreter and soan.verify live in the
checkout's top-level dsl/, interpreter/ and verify/ folders (setuptools maps
them when installing).  Run from a source checkout, without an install or with
the checkout shadowing the install, the same names are found here.
"""

from pathlib import Path as _Path

_checkout = _Path(__file__).resolve().parent.parent
if (_checkout / "dsl" / "soan.lark").is_file() and (_checkout / "interpreter").is_dir():
    __path__.append(str(_checkout))  # noqa: F821 - __path__ is a package's own

__version__ = "0.1.0"
