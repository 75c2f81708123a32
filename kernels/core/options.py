"""The rule options, declared once (RULES.md section 14).

:data:`OPTIONS` is the one table of the rule options: each row names an option,
its slot of the kernels' rules vector (``int64[N_RULES]``), how it is stored
there, its default (the ``default`` preset), what values it allows, the rule
ID it implements and one line of documentation.  From it come the ``RV_*``
slot constants and ``N_RULES`` of :mod:`kernels.core.layout`, the fields,
validation, vector encoding and decoding of ``sim.Rules``, the ``--rule``
parsing, and the generated options table of ``docs/rule_sets.md``.

The rows are in the order of ``sim.Rules``' fields (the order of manifests and
of ``burraco rules``); the slots are an independent numbering, checked at
import to cover ``0 .. N_RULES-1`` once each.

Kinds and their encoding in the rules vector:

``int``
    an integer in ``lo..hi`` (and a multiple of ``step``), stored as is;
``bool``
    true or false, stored as 0/1;
``choice``
    one of ``choices``, stored as its index in ``choices``;
``ranks``
    a collection of rank names (never ``"2"``), stored as a bitmask: bit r
    for rank r (0 = ace .. 12 = king);
``int_or_off``
    ``None`` (off, stored as 0) or an integer in ``lo..hi`` and a multiple
    of ``step``.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

from .slots import check_family

MAX_POINTS = 100_000       # bound for bonus/penalty options (points)
MAX_TURNS = 10_000         # turn counts are stored as int16 in the dataset
MAX_POZZETTO = 18          # cards per pozzetto the kernels' state holds (state.PMAX)

#: Rank names by rank index (0 = ace .. 12 = king), as used by ``set_ranks``.
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


class Option(NamedTuple):
    """One rule option: a row of :data:`OPTIONS`."""

    name: str               # field of sim.Rules, --rule OPTION=VALUE
    slot: int               # index in the rules vector
    kind: str               # int, bool, choice, ranks, int_or_off
    default: object         # value of the default preset
    rule: str               # rule ID(s) of RULES.md it implements
    doc: str                # one line: what it does
    lo: int = 0             # int, int_or_off: lowest allowed value
    hi: int = 0             # int, int_or_off: highest allowed value
    step: int = 1           # int, int_or_off: values are multiples of this
    choices: tuple = ()     # choice: allowed values, in kernel code order
    unit: str = ""          # int, int_or_off: unit of the value (docs)

    @property
    def allowed(self) -> str:
        """What values the option allows, in words (docs and docstrings)."""
        if self.kind == "bool":
            return "true or false"
        if self.kind == "ranks":
            return "any ranks but 2"
        if self.kind == "choice":
            return " or ".join(f'"{c}"' for c in self.choices)
        text = f"{self.lo}..{self.hi}" + (f", multiples of {self.step}" if self.step != 1 else "")
        return "none (off) or " + text if self.kind == "int_or_off" else text

    @property
    def slot_name(self) -> str:
        """Name of the slot constant in :mod:`kernels.core.layout` (``RV_*``)."""
        return "RV_" + self.name.upper() + ("_MASK" if self.kind == "ranks" else "")


OPTIONS = (
    Option("num_players", 0, "int", 4, "R5, R61-R63", "players at the table", lo=2, hi=4),
    Option("hand_size", 1, "int", 11, "R8", "cards dealt to each player", lo=1, hi=50,
           unit="cards"),
    Option("pozzetto_size", 2, "int", 11, "R8", "cards in each pozzetto", lo=1, hi=MAX_POZZETTO,
           unit="cards"),
    Option("three_player_mode", 24, "choice", "solo_18", "R62, R63",
           "three players: pozzetto A of 18 and a pair once it is taken, or everyone alone",
           choices=("solo_18", "individual_3x11")),
    Option("set_ranks", 3, "ranks", tuple(r for r in RANK_NAMES if r != "2"), "R16",
           "ranks that may form a set"),
    Option("allow_duplicate_set_rank", 4, "bool", False, "R23",
           "a team may hold two sets of one rank"),
    Option("lock_two_roles", 5, "bool", False, "R25",
           "a two keeps the role (natural or wild) it entered a meld with"),
    Option("semi_clean_bonus", 6, "int_or_off", None, "R29",
           "bonus of a semi-clean burraco; off: such melds score as dirty",
           lo=5, hi=MAX_POINTS, step=5, unit="points"),
    Option("semi_clean_rule", 7, "choice", "adjacent_run", "R29",
           "which burracos with one wild are semi-clean",
           choices=("adjacent_run", "wild_at_end")),
    Option("extra_burraco_classes", 8, "bool", False, "R31", "royal and super burraco classes"),
    Option("take_pile_requires_meld", 9, "bool", False, "R34",
           "the discard pile may be taken only if a card can then be placed"),
    Option("forbid_rediscard_single_pile", 10, "bool", True, "R36",
           "the card of a one-card pile may not be discarded in the same turn"),
    Option("require_clean_burraco_to_close", 11, "bool", False, "R45",
           "closing needs a clean burraco, not any burraco"),
    Option("stock_reserve", 12, "int", 2, "R50", "stock cards that are never drawn",
           lo=0, hi=107, unit="cards"),
    Option("stock_end_mode", 13, "choice", "finish_turn", "R50",
           "when the stock reaches the reserve: the turn is finished, or the hand ends at once",
           choices=("finish_turn", "immediate")),
    Option("stall_turn_limit", 14, "int", 12, "R51",
           "consecutive stalled turns that end the hand", lo=1, hi=MAX_TURNS, unit="turns"),
    Option("max_turns_per_hand", 15, "int", 400, "R52", "safety cap on player turns per hand",
           lo=1, hi=MAX_TURNS, unit="turns"),
    Option("untaken_pozzetto_as_stock", 16, "bool", False, "R53",
           "an untaken pozzetto becomes the stock"),
    Option("clean_bonus", 17, "int", 200, "R56", "bonus of a clean burraco",
           lo=0, hi=MAX_POINTS, step=5, unit="points"),
    Option("dirty_bonus", 18, "int", 100, "R56", "bonus of a dirty burraco",
           lo=0, hi=MAX_POINTS, step=5, unit="points"),
    Option("closing_bonus", 19, "int", 100, "R47, R55", "bonus for closing",
           lo=0, hi=MAX_POINTS, step=5, unit="points"),
    Option("pozzetto_penalty", 20, "int", 100, "R55", "penalty for never taking the pozzetto",
           lo=0, hi=MAX_POINTS, step=5, unit="points"),
    Option("target_score", 21, "int", 2005, "R60", "match threshold, inclusive",
           lo=5, hi=10 * MAX_POINTS, unit="points"),
    Option("pile_close_no_bonus", 22, "bool", False, "D12",
           "no closing bonus in a turn that took the discard pile"),
    Option("pile_meld_source", 23, "choice", "any", "R34",
           "with take_pile_requires_meld: the placed card may come from anywhere, or from the pile",
           choices=("any", "from_pile")),
    Option("three_player_pozzetto_a_size", 25, "int", 18, "R62",
           "size of pozzetto A in three-player solo_18", lo=1, hi=MAX_POZZETTO, unit="cards"),
    Option("three_player_pair_share", 26, "choice", "full", "R62",
           "what each member of the three-player pair is credited: the side's score, or half",
           choices=("full", "half_round_up")),
    Option("three_player_switch_at", 27, "int", 1000, "R63",
           "three-player match total from which hands are individual_3x11",
           lo=0, hi=10 * MAX_POINTS, unit="points"),
    Option("three_player_target", 28, "int", 2005, "R63", "three-player match threshold",
           lo=5, hi=10 * MAX_POINTS, unit="points"),
)

N_RULES = len(OPTIONS)

#: Options by name.
BY_NAME = {o.name: o for o in OPTIONS}


check_family("RV", {o.slot_name: o.slot for o in OPTIONS}, N_RULES)


def typed(value: object) -> str:
    """An option value as typed after ``--rule OPTION=`` (booleans ``true``/``false``,
    ranks comma-separated, off ``none``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(value)
    return "none" if value is None else str(value)


def default_text(o: Option) -> str:
    """The default of option ``o`` as written in the docs (choices in quotes)."""
    return f'"{o.default}"' if o.kind == "choice" else typed(o.default)


def options_markdown() -> str:
    """The options table of ``docs/rule_sets.md``, generated from :data:`OPTIONS`.

    Returns
    -------
    str
        A Markdown table: option, allowed values, default, rule ID, what it does.
    """
    rows = ["| option | allowed | default | rule | what it does |", "|---|---|---|---|---|"]
    for o in OPTIONS:
        unit = f" ({o.unit})" if o.unit else ""
        rows.append(f"| `{o.name}` | {o.allowed}{unit} | `{typed(o.default)}` | {o.rule} "
                    f"| {o.doc} |")
    return "\n".join(rows) + "\n"


#: The markers around the generated options table in ``docs/rule_sets.md``.
DOC_MARKERS = ("<!-- options table: generated by python -m kernels.core.options, do not edit -->\n",
               "<!-- end of the options table -->\n")
DOC_PAGE = Path(__file__).resolve().parents[2] / "docs" / "rule_sets.md"


def options_doc(text: str) -> str:
    """``text`` (a docs page) with the part between :data:`DOC_MARKERS` regenerated.

    Raises
    ------
    ValueError
        The page does not hold both markers once each, in order.
    """
    begin, end = DOC_MARKERS
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise ValueError("options doc: the page must hold the two markers of the options "
                         "table once each, in order")
    head, rest = text.split(begin)
    return head + begin + options_markdown() + end + rest.split(end, 1)[1]


def main(argv: list | None = None) -> int:
    """Regenerate the options table of a docs page in place: ``python -m
    kernels.core.options [PAGE]`` (default ``docs/rule_sets.md``)."""
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else DOC_PAGE
    text = path.read_text(encoding="utf-8")
    new = options_doc(text)
    if new != text:
        path.write_text(new, encoding="utf-8")
    print(f"{path}: options table {'regenerated' if new != text else 'up to date'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
