"""soan.dsl: the rules language (grammar, IR, compiler and located errors)."""

from .compiler import compile_text, load_spec
from .errors import Problem, SpecErrors, SpecRuntimeError
from .ir import Spec

__all__ = ["compile_text", "load_spec", "Problem", "SpecErrors", "SpecRuntimeError", "Spec"]
