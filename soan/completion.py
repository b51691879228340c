"""`soan completion bash|zsh|fish`: a shell completion script for soan, made from the command line's own
parser (so it never lists a command or option soan does not have).  It completes commands, options, spec
files (*.soan; game logs for replay), bot and property names, and the names of a spec's open rulings,
assumptions and options after --rule and --option, which it asks soan itself for through the hidden
helper `soan completion --rulings SPEC` / `--options SPEC`.

    source <(soan completion bash)             # in ~/.bashrc
    soan completion zsh > ~/.zfunc/_soan       # with fpath+=~/.zfunc before compinit in ~/.zshrc
    soan completion fish > ~/.config/fish/completions/soan.fish
"""

from __future__ import annotations

import argparse
import re
import sys

from .cmdline import EXIT_OK, PROPERTY_NAMES, UsageError

SHELLS = ("bash", "zsh", "fish")
FILE_OPTIONS = {"--log", "--html", "--md", "--save", "--resume", "--out", "--spec", "--witness-dir", "--logs", "--dir"}
DIR_OPTIONS = {"--witness-dir", "--logs", "--dir"}
BOT_OPTIONS = {"--bots", "-b"}
MAX_VALUES = 12  # a number ruling with more values than this is completed to NAME= only


def add_parser(sub, common=None) -> None:
    p = sub.add_parser("completion", allow_abbrev=False,
                       help="print a shell completion script: source <(soan completion bash)")
    p.add_argument("shell", nargs="?", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")
    p.add_argument("--rulings", metavar="SPEC", help=argparse.SUPPRESS)  # for the scripts: NAME=VALUE lines
    p.add_argument("--options", metavar="SPEC", help=argparse.SUPPRESS)  # for the scripts: option names


def cmd_completion(args, out, err) -> int:
    if args.rulings or args.options:
        sys.stdout.write("".join(f"{w}\n" for w in spec_words(args.rulings or args.options, bool(args.rulings))))
        return EXIT_OK
    if args.shell is None:
        raise UsageError("give the shell: bash, zsh or fish", "e.g. source <(soan completion bash)")
    sys.stdout.write({"bash": bash_script, "zsh": zsh_script, "fish": fish_script}[args.shell](commands()))
    return EXIT_OK


def spec_words(path: str, rulings: bool) -> list[str]:
    """NAME=VALUE for each value of each open ruling and valued assumption, or each option's name."""
    from soan import api
    from soan.dsl import ir

    spec = api.load(path)
    if not rulings:
        return [o.name for o in spec.options]
    enums = {e.name: e.values for e in spec.enums}
    words = []
    for name, d in [(r.name, r.domain) for r in spec.rulings] + [(a.name, a.domain) for a in spec.assumptions
                                                                 if a.domain is not None]:
        match d:
            case ir.BoolDomain():
                values = ["true", "false"]
            case ir.EnumDomain(values=vals, name=ename):
                values = list(vals or enums.get(ename, ()))
            case ir.IntDomain(lo=lo, hi=hi) if hi - lo < MAX_VALUES:
                values = [str(v) for v in range(lo, hi + 1)]
            case _:
                values = [""]
        words += [f"{name}={v}" for v in values]
    return words


class Command:
    def __init__(self, name: str, help: str, options: list[tuple[list[str], bool, str, list[str] | None]],
                 positional: str | None):
        self.name, self.help, self.options, self.positional = name, help, options, positional


def commands() -> list[Command]:
    """soan's commands from its own parser: each with its options (names, takes a value, help, choices)."""
    from .cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help or "" for c in sub._choices_actions}
    out = []
    for name, sp in sub.choices.items():
        options, positional = [], None
        for a in sp._actions:
            if a.help == argparse.SUPPRESS:
                continue
            if a.option_strings:
                if "-h" in a.option_strings:
                    continue
                options.append((list(a.option_strings), a.nargs != 0, (a.help or "").replace("%%", "%"),
                                [str(c) for c in a.choices] if a.choices else None))
            elif positional is None:
                positional = a.metavar or a.dest
        out.append(Command(name, helps.get(name, ""), options, positional))
    return out


def _bots() -> list[str]:
    from soan import api

    return list(api.BOT_NAMES)


def _files_of(cmd: Command) -> str:
    """The glob the command's first argument is completed from."""
    if cmd.name == "replay":
        return "*.json"
    if cmd.name == "test":
        return "*.@(soan|playthrough)"
    return "*.soan"


def _short(help: str) -> str:
    """An option's help cut to its first clause, for the one line a shell shows beside it."""
    text = re.split(r"[;(]|, or ", help)[0].strip().rstrip(",:")
    return text if len(text) <= 70 else text[:69].rsplit(" ", 1)[0] + "…"


# ---- bash -----------------------------------------------------------------------------------------


def bash_script(cmds: list[Command]) -> str:
    names = " ".join(c.name for c in cmds)
    valued = sorted({o for c in cmds for opts, takes, _, _ in c.options if takes for o in opts} | {"--width"})
    cases = []
    for c in cmds:
        opts = " ".join(o for opts, _, _, _ in c.options for o in opts)
        cases.append(f"        {c.name}) opts=\"{opts}\"; glob='{_files_of(c)}' ;;")
    choices = []
    for c in cmds:
        for opts, takes, _, ch in c.options:
            if ch:
                choices.append(f"        {c.name}:{'|'.join(opts)}) ;;")
    return f"""# bash completion for soan: source <(soan completion bash)
_soan() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    local cmd="" spec="" i w
    local valued=" {' '.join(valued)} "
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${{COMP_WORDS[i]}}"
        if [[ -z "$cmd" && "$w" != -* && " ${{COMP_WORDS[i-1]}} " != *" --width "* ]]; then
            cmd="$w"
        elif [[ -n "$cmd" && -z "$spec" && "$w" == *.soan ]]; then
            spec="$w"
        fi
    done
    if [[ -z "$cmd" ]]; then
        COMPREPLY=($(compgen -W "{names} --help --version --width" -- "$cur"))
        return
    fi
    local opts="" glob="*.soan"
    case "$cmd" in
{chr(10).join(cases)}
    esac
    # --rule NAME=VALUE: bash splits the word at '=', so the value comes as the word after '='
    if [[ "$prev" == "=" && "${{COMP_WORDS[COMP_CWORD-3]}}" == "--rule" && -n "$spec" ]]; then
        local name="${{COMP_WORDS[COMP_CWORD-2]}}"
        COMPREPLY=($(compgen -W "$(soan completion --rulings "$spec" 2>/dev/null | sed -n "s/^$name=//p")" -- "$cur"))
        return
    fi
    if [[ "$cur" == "=" && "$prev" != -* && "${{COMP_WORDS[COMP_CWORD-2]}}" == "--rule" && -n "$spec" ]]; then
        COMPREPLY=($(soan completion --rulings "$spec" 2>/dev/null | sed -n "s/^$prev=//p"))
        return
    fi
    case "$prev" in
        --rule)
            [[ -n "$spec" ]] && COMPREPLY=($(compgen -W "$(soan completion --rulings "$spec" 2>/dev/null)" -- "$cur"))
            compopt -o nospace 2>/dev/null
            return ;;
        --option)
            [[ -n "$spec" ]] && COMPREPLY=($(compgen -W "$(soan completion --options "$spec" 2>/dev/null)" -- "$cur"))
            return ;;
        --bots|-b)
            COMPREPLY=($(compgen -W "{' '.join(_bots())}" -- "$cur"))
            return ;;
        --only)
            COMPREPLY=($(compgen -W "{' '.join(_property_names())}" -- "$cur"))
            return ;;
        --fail-on)
            COMPREPLY=($(compgen -W "problems unknown witnessed" -- "$cur"))
            return ;;
        {'|'.join(sorted(DIR_OPTIONS))})
            COMPREPLY=($(compgen -d -- "$cur"))
            return ;;
        {'|'.join(sorted(FILE_OPTIONS - DIR_OPTIONS))})
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
    esac
    if [[ "$valued" == *" $prev "* ]]; then
        return  # a number or a word of the designer's own
    fi
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
        return
    fi
    if [[ "$cmd" == completion ]]; then
        COMPREPLY=($(compgen -W "{' '.join(SHELLS)}" -- "$cur"))
        return
    fi
    local IFS=$'\\n'
    COMPREPLY=($(shopt -s extglob; compgen -f -X "!$glob" -- "$cur"; compgen -d -S / -- "$cur"))
    compopt -o nospace 2>/dev/null
}}
complete -F _soan soan
"""


def _property_names() -> list[str]:
    return list(PROPERTY_NAMES)


# ---- zsh ------------------------------------------------------------------------------------------


def _zq(text: str) -> str:
    """Text inside a zsh _arguments spec in single quotes: brackets, colons and quotes escaped."""
    return (text.replace("\\", "\\\\").replace("'", "'\\''").replace("[", "\\[").replace("]", "\\]")
            .replace(":", "\\:"))


def zsh_script(cmds: list[Command]) -> str:
    describe = "\n".join(f"        '{c.name}:{_zq(c.help)}'" for c in cmds)
    cases = []
    for c in cmds:
        specs = []
        for opts, takes, help, ch in c.options:
            first = opts[0]
            excl = f"({' '.join(opts)})" if len(opts) > 1 else ""
            names = "{" + ",".join(opts) + "}" if len(opts) > 1 else first
            action = ""
            if takes:
                if first == "--rule":
                    action = ":ruling:_soan_rulings"
                elif first == "--option":
                    action = ":option:_soan_options"
                elif first in ("--bots",):
                    action = f":bots:({' '.join(_bots())})"
                elif first == "--only":
                    action = f":property:({' '.join(_property_names())})"
                elif ch:
                    action = f":value:({' '.join(ch)})"
                elif first in DIR_OPTIONS:
                    action = ":folder:_files -/"
                elif first in FILE_OPTIONS:
                    action = ":file:_files"
                else:
                    action = ":value: "
            repeat = "*" if first in ("--rule", "--option", "--seat", "--only", "--fail-on") else ""
            specs.append(f"'{repeat}{excl}{names}[{_zq(_short(help))}]{action}'")
        if c.name == "completion":
            specs.append(f"'1:shell:({' '.join(SHELLS)})'")
        elif c.positional:
            pattern = {"*.json": "*.json", "*.@(soan|playthrough)": "*.(soan|playthrough)"}.get(_files_of(c), "*.soan")
            specs.append(f"'*:{c.positional.lower()}:_files -g \"{pattern}\"'")
        cases.append(f"        {c.name})\n            _arguments -s \\\n                "
                     + " \\\n                ".join(specs) + " ;;")
    return f"""#compdef soan
# zsh completion for soan: soan completion zsh > ~/.zfunc/_soan  (fpath+=~/.zfunc before compinit)

_soan_spec() {{
    local w
    for w in $words; do [[ $w == *.soan ]] && {{ print -r -- $w; return }}; done
}}
_soan_rulings() {{
    local spec=$(_soan_spec)
    [[ -n $spec ]] || return 1
    local -a values
    values=(${{(f)"$(soan completion --rulings $spec 2>/dev/null)"}})
    compadd -S '' -a values
}}
_soan_options() {{
    local spec=$(_soan_spec)
    [[ -n $spec ]] || return 1
    local -a values
    values=(${{(f)"$(soan completion --options $spec 2>/dev/null)"}})
    compadd -a values
}}
_soan() {{
    local -a commands
    commands=(
{describe}
    )
    if (( CURRENT == 2 )); then
        _describe -t commands 'soan command' commands
        return
    fi
    local cmd=${{words[2]}}
    shift words
    (( CURRENT-- ))
    case $cmd in
{chr(10).join(cases)}
    esac
}}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    _soan "$@"
else
    compdef _soan soan
fi
"""


# ---- fish -----------------------------------------------------------------------------------------


def _fq(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'")


def fish_script(cmds: list[Command]) -> str:
    names = " ".join(c.name for c in cmds)
    lines = ["# fish completion for soan: soan completion fish > ~/.config/fish/completions/soan.fish",
             "function __soan_spec",
             "    for w in (commandline -opc)",
             "        string match -q -- '*.soan' $w; and echo $w; and return",
             "    end",
             "end",
             "complete -c soan -f",
             f"complete -c soan -n 'not __fish_seen_subcommand_from {names}' -l version -d 'print the version'"]
    for c in cmds:
        lines.append(f"complete -c soan -n 'not __fish_seen_subcommand_from {names}' -a {c.name} -d '{_fq(c.help)}'")
        when = f"__fish_seen_subcommand_from {c.name}"
        for opts, takes, help, ch in c.options:
            flags = " ".join(f"-l {o[2:]}" if o.startswith("--") else f"-s {o[1:]}" for o in opts)
            first = opts[0]
            extra = ""
            if takes:
                if first == "--rule":
                    extra = " -x -a '(soan completion --rulings (__soan_spec) 2>/dev/null)'"
                elif first == "--option":
                    extra = " -x -a '(soan completion --options (__soan_spec) 2>/dev/null)'"
                elif first == "--bots":
                    extra = f" -x -a '{' '.join(_bots())}'"
                elif first == "--only":
                    extra = f" -x -a '{' '.join(_property_names())}'"
                elif ch:
                    extra = f" -x -a '{' '.join(ch)}'"
                elif first in FILE_OPTIONS:
                    extra = " -r -F"
                else:
                    extra = " -x"
            lines.append(f"complete -c soan -n '{when}' {flags}{extra} -d '{_fq(_short(help))}'")
        if c.name == "completion":
            lines.append(f"complete -c soan -n '{when}' -a '{' '.join(SHELLS)}'")
        elif c.positional:
            suffix = {"*.json": ".json"}.get(_files_of(c), ".soan")
            lines.append(f"complete -c soan -n '{when}' -a '(__fish_complete_suffix {suffix})'")
    return "\n".join(lines) + "\n"
