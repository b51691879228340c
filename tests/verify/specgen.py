"""Small random specs in soan's language, for hunting unsound proofs.

`small_specs()` is a hypothesis strategy giving spec TEXT for tiny 2-player
games (1-3 rounds, a token or two with small supplies, a deck of 2-4 cards,
choices of 2-3 moves) small enough for `soan.verify.exhaustive.all_games` to
list every game.  It leans on the shapes that broke verify before: locals
changed with `set`/`+=`/`-=` in loops and branches, a `let` in an `if` body
reusing an outer name, loop and choice variables named like earlier lets,
def and procedure parameters named like the caller's locals, `repeat` with
zero or negative counts, `rounds until ... cap 0` and small caps, `while`
loops that reach their `max`, a player listed twice, card fields named like
built-ins, a ruling as a zone's capacity, recursion (one procedure passing
cards on to itself), locals holding cards, random picks in the setup and the
rounds, holds that leave out 0, rankings with tie-break keys and fallbacks,
and a few designer's questions and invariants.

`small_specs(avoid=...)` leaves groups of those shapes out (AVOIDABLE): with
all of them left out, a contradiction points at a cause not known yet.

`SHAPES` names those shapes; `shapes_of(text)` tells which a spec uses.
"""

from __future__ import annotations

import re

from hypothesis import strategies as st

# shape name -> a pattern over the spec text that shows it
_SHAPE_PATTERNS = {
    "set_local": r"^\s*set (n|acc|x|k|m)\b\s*(=|\+=|-=)",
    "accumulator": r"^\s*set acc \+= ",
    "let_in_if_shadows": r"#shadow",
    "loop_var_reuses_let": r"#reuse-loop",
    "let_rebinds_player": r"#rebind-player",
    "choice_var_reuses_let": r"#reuse-choice",
    "def_param_like_caller_local": r"#def-param",
    "proc_param_like_caller_local": r"#proc-param",
    "repeat_zero_or_negative": r"repeat (0|0 - \d+|-\d+) times",
    "take_negative": r"take\(deck, 0 - 1\)",
    "rounds_until_cap": r"^rounds until .* cap \d",
    "rounds_until_cap_0": r"^rounds until .* cap 0 ",
    "negative_rounds": r"^rounds 0 - \d",
    "while_reaches_max": r"while true max \d",
    "while": r"^\s*while ",
    "player_twice": r"\[(\w+(\([^\]]*?\))?), \1\]",
    "builtin_field_name": r"^\s*(seat|round): \d",
    "builtin_field_read": r"c\.(seat|round)\b",
    "ruling_capacity": r"capacity limit",
    "recursive_procedure": r"do down\((?!p, k - 1\))",
    "self_only_procedure": r"procedure forever",
    "recursion_passes_card": r"^\s*do put\(",
    "card_local": r"^\s*let \w+ = first\((deck|pool)\)",
    "set_card_local": r"^\s*set \w+ = first\(",
    "award_via_procedure": r"do gain\(",  # gain gives and awards
    "award_via_def": r"award (twice|plus)\(",
    "ranking_best": r"best \w+ in ",
    "ranking_order": r"order \w+ in ",
    "tiebreak_keys": r"(best|order) \w+ in [^\n]* by [^\n]*, ",
    "winner_line": r"^winner among ",
    "question": r"^(question|invariant) ",
    "question_at_end": r"^question .* at end$",
    "shuffle": r"^\s*shuffle deck",
    "pick_random": r"pick random ",
    "choose_options": r"choose by ",
    "choose_from_range": r"choose \w+ from \d\.\.\d",
    "choose_from_list": r"choose \w+ from \[",
    "two_tokens": r"^token gem ",
    "hold_above_zero": r"hold 1\.\.",
    "return": r"^\s*return \d",
    "draw": r"^\s*draw 1 from deck",
    "setup_pick": r"^  pick random",
    "setup_pick_sets_deck_size": r"^  pick random k from \[\d, 0\] \{ draw k",
    "loop_over_cards": r"^\s*for \w+ in (deck|[\w()]+\.hand) ",
    "choose_card": r"choose \w+ from deck ",
    "break": r"\{ break \}",
    "end_game": r"\{ end game \}",
}
SHAPES = list(_SHAPE_PATTERNS)


def shapes_of(text: str) -> set[str]:
    """The shapes of SHAPES a spec's text uses."""
    return {name for name, pat in _SHAPE_PATTERNS.items() if re.search(pat, text, re.M)}


NUMS = ("n", "acc", "x", "k", "m")  # local number names, reused on purpose
PLAYERS = ("p", "q")
LEAF_BUDGET = 4000  # the generator's own estimate of games; all_games is the real judge


# What `small_specs(avoid=...)` can leave out, to hunt for causes other than the known ones.
AVOIDABLE = ("set_local", "reuse", "negative", "cap_0", "player_twice", "builtin_field", "ruling_capacity",
             "pick", "hold_above_zero", "recursion")


class _Gen:
    def __init__(self, draw, avoid=frozenset()):
        self.draw = draw
        self.avoid = frozenset(avoid)
        self.fresh = 0
        self.leaves = 1
        self.out: list[str] = []
        self.has_deck = True
        self.tokens = ["coin"]
        self.items = ["pts"]
        self.seq = 0

    # ---- small helpers

    def pick(self, xs):
        return self.draw(st.sampled_from(list(xs)))

    def chance(self, percent: int) -> bool:
        return self.draw(st.integers(0, 99)) < percent

    def i(self, lo, hi) -> int:
        return self.draw(st.integers(lo, hi))

    def name(self, pool) -> str:
        """A name for a new binding: from the shared pool (names reused on purpose), or fresh."""
        if "reuse" in self.avoid:
            self.fresh += 1
            return f"v{self.fresh}"
        return self.pick(pool)

    # ---- expressions (scope: name -> 'num' | 'player')

    def nums(self, scope):
        return [n for n, t in scope.items() if t == "num"]

    def player(self, scope, simple=False) -> str:
        locs = [n for n, t in scope.items() if t == "player"]
        opts = locs * 3 + ["player(1)", "player(2)"]
        p = self.pick(opts)
        if not simple and self.chance(15):
            p = f"next({p})"
        return p

    def players(self, scope) -> str:
        """A player, or a list that may name one player twice."""
        r = self.i(0, 9)
        p = self.player(scope, simple=True)
        if r <= 5:
            return p
        if r in (6, 7) and "player_twice" in self.avoid:
            return "[player(1), player(2)]"
        if r == 6:
            return f"[{p}, {p}]"
        if r == 7:
            return f"[next({p}), next(next(next({p})))]"  # both neighbours: the same player at 2
        if r == 8:
            return "players"
        return f"[q2 in players where q2.v >= {self.i(0, 1)}]"

    def num(self, scope, depth=0) -> str:
        locs = self.nums(scope)
        r = self.i(0, 19)
        if r < 5 or depth >= 2:
            return str(self.i(0, 3)) if not locs or r < 3 else self.pick(locs)
        if r < 9 and locs:
            return self.pick(locs)
        if r == 9:
            return f"{self.player(scope)}.v"
        if r == 10:
            return f"{self.player(scope)}.{self.pick(self.tokens)}"
        if r == 11:
            return f"count({self.player(scope, True)}.hand)" if self.has_deck else "round"
        if r == 12:
            return f"supply({self.pick(self.tokens)})"
        if r == 13:
            return "round"
        if r == 14:
            return f"twice({self.num(scope, depth + 1)})"
        if r == 15:
            return f"plus({self.num(scope, depth + 1)})"
        if r == 16:
            return self.pick(["amt", "count(discard)"])
        if r == 17:
            return f"{self.num(scope, depth + 1)} + {self.num(scope, depth + 1)}"
        if r == 18:
            return f"{self.num(scope, depth + 1)} - {self.num(scope, depth + 1)}"
        if not self.has_deck:
            return "1"
        where = self.pick([f"{self.player(scope, True)}.hand", "deck"])
        return f"sum(c.{self.pick(self.card_keys)} for c in {where})"

    def nonneg(self, scope) -> str:
        e = self.num(scope)
        return e if re.fullmatch(r"\d+", e) else f"max(0, {e})"

    def cond(self, scope) -> str:
        r = self.i(0, 6)
        if r == 0:
            return self.pick(["true", "false"])
        if r == 1 and self.has_deck:
            return f"count(deck) > {self.i(0, 1)}"
        return f"{self.num(scope)} {self.pick(['<', '<=', '==', '>', '!='])} {self.num(scope)}"

    # ---- statements

    def emit(self, ind, line):
        self.out.append("  " * ind + line)

    def block(self, ind, scope, mult, depth, choices_ok, k_lo=1, k_hi=3):
        """A block's statements.  `mult` is how often it may run per game (None: unknown,
        then no choices inside); `scope` is copied, so inner lets stay inside (as soan check sees it)."""
        scope = dict(scope)
        for _ in range(self.i(k_lo, k_hi)):
            self.stmt(ind, scope, mult, depth, choices_ok)

    def can_branch(self, ways, mult, choices_ok) -> bool:
        if not choices_ok or mult is None:
            return False
        cost = ways ** mult
        if self.leaves * cost > LEAF_BUDGET:
            return False
        self.leaves *= cost
        return True

    def stmt(self, ind, scope, mult, depth, choices_ok):
        kinds = ["let", "set", "set", "award", "give", "if", "for_players", "for_nums", "repeat", "while",
                 "choose", "choose", "options", "proc", "setv", "rank", "pick", "draw", "return", "cards", "take",
                 "end", "cardlocal"]
        if depth >= 2:
            kinds = ["let", "set", "award", "give", "proc", "setv", "draw"]
        if "set_local" in self.avoid:
            kinds = [k for k in kinds if k != "set"]
        if "pick" in self.avoid:  # any random pick: verify takes those before the first decision as the setup's
            kinds = [k for k in kinds if k != "pick"]
        kind = self.pick(kinds)
        nums = self.nums(scope)
        if kind == "let" and self.chance(25):  # a player-valued local, maybe rebinding a loop's player
            name = self.name(PLAYERS)
            rebinds = scope.get(name) == "player"
            self.emit(ind, f"let {name} = {self.player(scope)}" + ("  #rebind-player" if rebinds else ""))
            scope[name] = "player"
        elif kind == "let":
            name = self.name(NUMS)
            shadow = name in scope and scope[name] == "num" and depth > 0
            self.emit(ind, f"let {name} = {self.num(scope)}" + ("  #shadow" if shadow else ""))
            scope[name] = "num"
        elif kind == "set":
            if not nums:
                name = self.name(["acc"])
                self.emit(ind, f"let {name} = {self.i(0, 2)}")
                scope[name] = "num"
                nums = [name]
            name = self.pick(nums)
            op = self.pick(["=", "+=", "+=", "-="])
            self.emit(ind, f"set {name} {op} {self.num(scope)}")
        elif kind == "award":
            amount = self.num(scope)
            tag = ""
            if self.chance(20):
                d = self.pick(["twice", "plus"])
                amount = f"{d}({amount})"
                # twice's parameter is n, plus's acc: a local of the same name here
                tag = "  #def-param" if scope.get({"twice": "n", "plus": "acc"}[d]) else ""
            self.emit(ind, f"award {amount} to {self.players(scope)} for {self.pick(self.items)}{tag}")
        elif kind == "give":
            self.emit(ind, f"give {self.nonneg(scope)} {self.pick(self.tokens)} to {self.player(scope)}")
        elif kind == "return":
            self.emit(ind, f"return {self.i(0, 2)} {self.pick(self.tokens)} from {self.player(scope)}")
        elif kind == "setv":
            self.emit(ind, f"set {self.player(scope)}.v {self.pick(['+=', '-=', '='])} {self.num(scope)}")
        elif kind == "draw":
            if self.has_deck:
                form = self.i(0, 2)
                who = self.player(scope, True)
                if form == 0:
                    self.emit(ind, f"if count({who}.hand) < limit {{")
                    self.emit(ind + 1, f"draw 1 from deck to {who}.hand")
                    self.emit(ind, "}")
                elif form == 1:  # a local holding at most the pile's count; changed or not before the draw
                    name = self.name(["k"])
                    self.emit(ind, f"let {name} = min({self.i(0, 3)}, count(deck))")
                    if self.chance(30):
                        self.emit(ind, f"set {name} += {self.i(0, 1)}")
                    elif self.chance(30):
                        self.emit(ind, f"draw 1 from deck to {who}.hand")
                    self.emit(ind, f"draw {name} from deck to {who}.hand")
                else:  # a loop whose test counts the pile: one or two draws a pass
                    self.emit(ind, f"while count(deck) > {self.i(0, 1)} max {self.i(1, 3)} {{")
                    self.emit(ind + 1, f"draw 1 from deck to {who}.hand")
                    if self.chance(40):
                        self.emit(ind + 1, f"draw 1 from deck to {who}.hand")
                    self.emit(ind, "}")
            else:
                self.emit(ind, f"award 1 to {self.player(scope)} for pts")
        elif kind == "cards":
            # a loop over cards: its count depends on where cards can be
            who = self.player(scope, True)
            zone, size = self.pick([(f"{who}.hand", self.ncards), ("deck", self.ncards)] +
                                   [("take(deck, 1)", 1), ("take(deck, 0 - 1)", 1)] * ("negative" not in self.avoid))
            var = self.name(["c", "n"]) if "reuse" not in self.avoid else self.name(())
            self.emit(ind, f"for {var} in {zone} {{")
            self.emit(ind + 1, f"award {var}.val to {who} for {self.pick(self.items)}")
            if self.can_branch(2, None if mult is None else mult * size, choices_ok and self.chance(50)):
                self.emit(ind + 1, f'choose by {who} "keeps or scores" {{')
                self.emit(ind + 2, "option keep { say \"kept\" }")
                self.emit(ind + 2, f"option score {{ award 1 to {who} for pts }}")
                self.emit(ind + 1, "}")
            if self.chance(40):
                self.emit(ind + 1, f"if {var}.val >= {self.i(1, 3)} {{ break }}")
            self.emit(ind, "}")
        elif kind == "take":
            who = self.player(scope, True)
            if not self.can_branch(min(self.ncards, 3), mult, choices_ok):
                self.emit(ind, f"award 1 to {who} for pts")
                return
            var = self.name(["c", "k"]) if "reuse" not in self.avoid else self.name(())
            self.emit(ind, f'choose {var} from deck by {who} "takes a card" {{')
            self.emit(ind + 1, f"if count({who}.hand) < limit {{ move {var} to {who}.hand }}")
            self.emit(ind + 1, f"award {var}.val to {who} for {self.pick(self.items)}")
            self.emit(ind, "}")
        elif kind == "cardlocal":
            # a local holding a card, maybe changed with set before the card moves
            name = self.name(["c", "d"])
            self.emit(ind, f"let {name} = first({self.pick(['deck', 'pool'])})")
            if "set_local" not in self.avoid and self.chance(60):
                self.emit(ind, f"set {name} = first({self.pick(['pool', 'deck'])})")
            self.emit(ind, f"move {name} to discard")
        elif kind == "end":
            self.emit(ind, f"if {self.cond(scope)} {{ end game }}")
        elif kind == "if":
            self.emit(ind, f"if {self.cond(scope)} {{")
            self.block(ind + 1, scope, mult, depth + 1, choices_ok)
            if self.chance(50):
                self.emit(ind, "} else {")
                self.block(ind + 1, scope, mult, depth + 1, choices_ok)
            self.emit(ind, "}")
            if nums and self.chance(50):  # read what the branch may have changed
                self.emit(ind, f"give {self.nonneg_of(self.pick(nums))} {self.pick(self.tokens)} to "
                               f"{self.player(scope)}")
        elif kind == "for_players":
            var = self.name(PLAYERS + ("n",))
            reuse = var in scope and scope[var] == "num"
            coll = self.pick(["players", "players", f"[{self.player(scope, True)}, {self.player(scope, True)}]",
                              f"players from {self.player(scope, True)}"])
            if "player_twice" in self.avoid and coll.startswith("["):
                coll = "[player(2), player(1)]"
            self.emit(ind, f"for {var} in {coll} {{" + ("  #reuse-loop" if reuse else ""))
            inner = dict(scope)
            inner[var] = "player"
            self.block(ind + 1, inner, None if mult is None else mult * 2, depth + 1, choices_ok)
            self.emit(ind, "}")
            if reuse and self.chance(60):
                self.emit(ind, f"give {self.nonneg_of(var)} {self.pick(self.tokens)} to {self.player(scope)}")
        elif kind == "for_nums":
            var = self.name(NUMS)
            reuse = var in scope
            coll, size = self.pick([("1..2", 2), ("[0, 1]", 2), ("0..2", 3), ("[2]", 1)])
            self.emit(ind, f"for {var} in {coll} {{" + ("  #reuse-loop" if reuse else ""))
            inner = dict(scope)
            inner[var] = "num"
            self.block(ind + 1, inner, None if mult is None else mult * size, depth + 1, choices_ok)
            self.emit(ind, "}")
            if reuse and scope[var] == "num" and self.chance(60):
                self.emit(ind, f"award {var} to {self.player(scope)} for {self.pick(self.items)}")
        elif kind == "repeat":
            count, times = self.pick([("0", 0), ("0 - 2", 0), ("-1", 0), ("1", 1), ("2", 2), ("LOCAL", None)])
            if count == "LOCAL":
                count = self.pick(nums) if nums else "0 - 1"
            if "negative" in self.avoid and count not in ("0", "1", "2"):
                count = f"max(0, {count})"
            self.emit(ind, f"repeat {count} times {{")
            self.block(ind + 1, scope, None if mult is None or times is None else mult * max(times, 1), depth + 1,
                       choices_ok and times is not None)
            self.emit(ind, "}")
        elif kind == "while":
            if self.chance(40) or "set_local" in self.avoid:
                cap = self.i(1, 2)
                self.emit(ind, f"while true max {cap} {{")
            else:
                if not nums:
                    name = self.name(["acc"])
                    self.emit(ind, f"let {name} = 0")
                    scope[name] = "num"
                    nums = [name]
                v = self.pick(nums)
                cap = self.i(1, 3)
                self.emit(ind, f"while {v} < {self.i(0, 4)} max {cap} {{")
                self.emit(ind + 1, f"set {v} += 1")
            self.block(ind + 1, scope, None if mult is None else mult * cap, depth + 1, choices_ok, 0, 2)
            self.emit(ind, "}")
        elif kind in ("choose", "options", "pick"):
            ways = 2 if kind != "choose" else self.i(2, 3)
            if not self.can_branch(ways, mult, choices_ok):
                self.emit(ind, f"award {self.num(scope)} to {self.player(scope)} for {self.pick(self.items)}")
                return
            who = self.player(scope)
            if kind == "options":
                self.emit(ind, f'choose by {who} "acts" {{')
                for name in ("left", "right"):
                    self.emit(ind + 1, f"option {name} {{")
                    self.block(ind + 2, scope, mult, depth + 1, False, 1, 2)
                    self.emit(ind + 1, "}")
                self.emit(ind, "}")
                return
            var = self.name(NUMS)
            reuse = var in scope
            src = {2: ["[0, 1]", "0..1", "[1, 3]", "[0 - 1, 2]"], 3: ["0..2", "[0, 1, 2]", "1..3"]}[ways]
            tag = "  #reuse-choice" if reuse else ""
            if kind == "pick":
                self.emit(ind, f"pick random {var} from {self.pick(src[:2])} {{{tag}")
            else:
                self.emit(ind, f'choose {var} from {self.pick(src)} by {who} "takes" {{{tag}')
            inner = dict(scope)
            inner[var] = "num"
            self.block(ind + 1, inner, mult, depth + 1, False, 1, 2)
            self.emit(ind, "}")
            if reuse and scope[var] == "num" and self.chance(60):
                self.emit(ind, f"give {self.nonneg_of(var)} {self.pick(self.tokens)} to {self.player(scope)}")
        elif kind == "proc":
            r = self.i(0, 9)
            if r <= 5:
                # gain's parameters are p and n: a caller's local n or player p shares the name
                tag = "  #proc-param" if scope.get("n") == "num" or scope.get("p") == "player" else ""
                self.emit(ind, f"do gain({self.player(scope)}, {self.nonneg(scope)}){tag}")
            elif r == 8 and "recursion" not in self.avoid:
                self.emit(ind, f"do put(first({self.pick(['deck', 'pool'])}), {self.pick(['0', '1', '2'])})")
            elif r <= 8:
                self.emit(ind, f"do down({self.player(scope)}, {self.pick(['0', '1', '2', '0 - 1'])})")
            elif "reuse" in self.avoid:
                self.emit(ind, f"award plus({self.num(scope)}) to {self.player(scope)} for pts")
            else:
                # a def whose parameter is called like a local of this block
                if "acc" not in scope:
                    self.emit(ind, f"let acc = {self.i(0, 3)}")
                    scope["acc"] = "num"
                self.emit(ind, f"award plus({self.num(scope)}) to {self.player(scope)} for pts  #def-param")
        elif kind == "rank":
            name = self.name(["w", "ws"])
            key1 = self.pick(["q.v desc", "vp(q) desc", f"q.{self.pick(self.tokens)} asc", "q.seat asc",
                              "distance(player(1), q) asc"])
            keys = key1 if self.chance(40) else f"{key1}, {self.pick(['vp(q) asc', 'q.seat desc', 'q.v asc'])}"
            if self.chance(60):
                fb = self.pick(["shared", "none", "stable"])
                self.emit(ind, f"let {name} = best q in players by {keys} else {fb}")
                self.emit(ind, f"award 1 to {name} for {self.pick(self.items)}")
            else:
                self.emit(ind, f"let {name} = order q in players by {keys} else stable")
                self.emit(ind, f"award 1 to first({name}) for {self.pick(self.items)}")
            if self.has_deck and self.chance(40):
                field = self.pick(self.card_keys)
                fb = self.pick(["shared", "none", "stable"])
                top = self.name(["top"])
                self.emit(ind, f"let {top} = best c in deck by c.{field} desc else {fb}")
                self.emit(ind, f"award count({top}) to {self.player(scope)} for pts")

    def nonneg_of(self, name) -> str:
        return f"max(0, {name})"


@st.composite
def small_specs(draw, avoid=frozenset()) -> str:
    """Spec text of a tiny 2-player game (see the module's docstring).  `avoid`
    (names from AVOIDABLE) leaves shapes out: a hunt for other causes than those."""
    assert set(avoid) <= set(AVOIDABLE), set(avoid) - set(AVOIDABLE)
    g = _Gen(draw, avoid)
    L = []
    L.append('game "Generated" players 2..2')
    supply = g.i(1, 4)
    L.append(f"token coin supply {supply} hold 0..40 when short partial")
    if g.chance(30):
        g.tokens.append("gem")
        # a hold that leaves out 0 (then given out in the setup, and maybe returned)
        low = g.pick(["0", "0" if "hold_above_zero" in avoid else "1"])
        # with a hold from 1, enough for the setup to give each player one (else the setup stops with an error)
        L.append(f"token gem supply {g.i(0 if low == '0' else 2, 3)} hold {low}..40 when short partial")
    L.append('score pts "Points"')
    if g.chance(40):
        g.items.append("bonus")
        L.append('score bonus "Bonus"' + (" -40..40" if g.chance(50) else ""))
    L.append("player { v: -40..40 = 0 }")
    L.append(f'ruling amt: 0..3 = {g.i(0, 3)} "How many points is a bonus worth?"')
    # the deck: 2-4 cards, fields possibly named like built-ins
    g.has_deck = True
    builtin = None if "builtin_field" in avoid else g.pick([None, "seat", "round"])
    g.card_keys = ["val"] + ([builtin] if builtin else [])
    L.append('component card "Card" {')
    L.append("  val: 0..3")
    if builtin:
        L.append(f"  {builtin}: 1..3")
    L.append("}")
    ncards = g.ncards = g.i(2, 4)
    rows = []
    for _ in range(ncards):
        row = f"1 x val = {g.i(0, 3)}"
        if builtin:
            row += f", {builtin} = {g.i(1, 3)}"
        rows.append(row)
    L.append("cards card in deck { " + "  ".join(rows) + " }")
    L.append(f"cards card in pool {{ {g.i(1, 2)} x val = {g.i(0, 3)}" + (f", {builtin} = 1" if builtin else "") + " }")
    L.append("zone deck: shared public stack")
    L.append("zone pool: shared public stack")
    L.append("zone discard: shared public stack")
    if g.chance(35) and "ruling_capacity" not in avoid:
        L.append(f'ruling limit: 1..3 = {g.i(1, 2)} "How many cards may a hand hold?"')
        L.append("zone hand: per_player public unordered capacity limit")
    else:
        L.append(f"assume limit: 1..3 = {g.i(1, 2)} \"A hand holds at most this many cards.\"")
        L.append("zone hand: per_player public unordered")
    L.append("def twice(n) = n * 2")
    L.append("def plus(acc) = acc + 1")
    L.append("procedure gain(p, n) {")
    L.append(f"  give n {g.pick(g.tokens)} to p")
    L.append(f"  award n to p for {g.pick(g.items)}")
    L.append("}")
    L.append("procedure down(p, k) {")
    L.append("  if k > 0 {")
    L.append(f"    award {g.pick(['1', 'k'])} to p for {g.pick(g.items)}")
    L.append(f"    give 1 {g.pick(g.tokens)} to p")
    L.append("    do down(p, k - 1)")
    L.append("  }")
    L.append("}")
    # a recursive procedure that passes another card on to itself
    L.append("procedure put(c, k) {")
    L.append("  if k > 0 {")
    L.append("    do put(first(pool), k - 1)")
    L.append("  } else {")
    L.append("    move c to discard")
    L.append("  }")
    L.append("}")
    if g.chance(30):
        L.append("procedure forever(k) {")
        L.append("  do forever(k)")
        L.append("}")

    # setup: maybe a shuffle of at most 3 cards, maybe a deal
    setup = []
    if ncards <= 3 and g.chance(40):
        setup.append("  shuffle deck")
        g.leaves *= 6 if ncards == 3 else 2
    if g.chance(40):
        setup.append("  for p in players { draw 1 from deck to p.hand }")
    r = g.i(0, 9) if "pick" not in avoid else 9
    if r < 2:  # a random card leaves the game: the rest of the game depends on which
        setup.append("  pick random c from deck { move c to box }")
        g.leaves *= ncards
    elif r < 4:
        setup.append(f"  pick random q from players {{ set q.v = {g.i(1, 3)} }}")
        g.leaves *= 2
    elif r < 6:  # how many cards stay in the deck is left to chance
        setup.append(f"  pick random k from [{g.i(1, ncards)}, 0] {{ draw k from deck to box }}")
        g.leaves *= 2
    if "gem" in g.tokens and "hold 1..40" in "\n".join(L):
        setup.append("  for p in players { give 1 gem to p }")
    if setup:
        L.append("setup {")
        L.extend(setup)
        L.append("}")

    # the rounds
    r = g.i(0, 9)
    if r <= 5:
        rounds = g.i(1, 3)
        L.append(f"rounds {rounds} {{")
    elif r == 6 and "negative" not in avoid:
        rounds = 0
        L.append(f"rounds 0 - {g.i(1, 2)} {{")
    else:
        rounds = g.i(1 if "cap_0" in avoid else 0, 2)
        cond = g.pick(["supply(coin) == 0", "round >= 2", "any(q in players where vp(q) > 2)",
                       "count(deck) == 0", "false"])
        L.append(f"rounds until {cond} cap {rounds} {{")
        rounds = max(rounds, 1)
    g.out = []
    scope = {}
    if g.chance(60):
        name = g.name(["acc"])
        g.emit(1, f"let {name} = {g.i(0, 1)}")
        scope[name] = "num"
    if g.chance(40):
        name = g.name(["n"])
        g.emit(1, f"let {name} = {g.i(0, 2)}")
        scope[name] = "num"
    g.block(1, scope, max(rounds, 1), 0, True, 1, 4)
    body_scope = dict(scope)
    nums = g.nums(body_scope)
    if nums and g.chance(70):  # the accumulator idiom's last step: spend the total
        v = g.pick(nums)
        if g.chance(50):
            g.emit(1, f"award {v} to {g.player(body_scope)} for {g.pick(g.items)}")
        else:
            g.emit(1, f"give max(0, {v}) {g.pick(g.tokens)} to {g.player(body_scope)}")
    L.extend(g.out)
    L.append("}")

    if g.chance(50):
        g.out = []
        g.block(1, {}, 1, 0, True, 1, 2)
        L.append("scoring {")
        L.extend(g.out)
        L.append("}")

    key1 = g.pick(["vp(p) desc", "p.v desc", "p.coin asc", "p.seat asc", "count(p.hand) desc"])
    keys = key1 if g.chance(50) else f"{key1}, {g.pick(['p.coin desc', 'p.v asc', 'p.seat desc', 'vp(p) asc'])}"
    L.append(f"winner among p in players by {keys} else {g.pick(['shared', 'draw', 'stable'])}")

    # a designer's question or two, answered by verify and checked on every state a game stops at
    questions = [
        f"question late : can round >= {g.i(1, 3)}",
        f"question rich : can vp(player(1)) >= {g.i(1, 6)} at end",
        f"question coins : can any(q.coin >= {g.i(1, 4)} for q in players) at end",
        f"question low : always all(q.v <= {g.i(0, 3)} for q in players) at end",
        f"invariant kept : supply(coin) + sum(q.coin for q in players) == {supply}",
        f"question piled : can count(discard) >= {g.i(1, 3)} at end",
        f"question short : always supply(coin) >= {g.i(0, 1)}",
    ]
    L.extend(draw(st.permutations(questions))[:g.i(0, 2)])
    return "\n".join(L) + "\n"
