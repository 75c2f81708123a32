"""The tables that declare the rule options, the heuristic's parameters and the
kernels' constant families once: what is generated from them, and the overlap
check of every family."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from kernels.core import layout as L
from kernels.core import options as O
from kernels.core.slots import check_family
from sim.core.rules import ENUMS, PRESETS, Rules
from ref.options import DEFAULT_RULES


# ============================================================== rule options
def test_rules_fields_are_the_table_rows_in_order():
    fields = dataclasses.fields(Rules)
    assert [f.name for f in fields] == [o.name for o in O.OPTIONS] == list(Rules.options())
    assert {f.name: f.default for f in fields} == {o.name: o.default for o in O.OPTIONS}
    assert ENUMS == {o.name: o.choices for o in O.OPTIONS if o.kind == "choice"}


def test_layout_slots_are_the_table_slots():
    assert L.N_RULES == len(O.OPTIONS) == 29
    for o in O.OPTIONS:
        assert getattr(L, o.slot_name) == o.slot
    # hand-checked names the kernels use
    assert (L.RV_NUM_PLAYERS, L.RV_SET_RANKS_MASK, L.RV_THREE_PLAYER_MODE,
            L.RV_THREE_PLAYER_TARGET) == (0, 3, 24, 28)


def test_referee_defaults_agree_with_the_table():
    """The referee keeps its own defaults on purpose; they must agree with the table's."""
    assert DEFAULT_RULES == Rules().to_dict()


VARIED = Rules(num_players=3, hand_size=9, pozzetto_size=13, three_player_mode="individual_3x11",
               set_ranks=("A", "3", "K"), allow_duplicate_set_rank=True, lock_two_roles=True,
               semi_clean_bonus=150, semi_clean_rule="wild_at_end", extra_burraco_classes=True,
               take_pile_requires_meld=True, forbid_rediscard_single_pile=False,
               require_clean_burraco_to_close=True, stock_reserve=3, stock_end_mode="immediate",
               stall_turn_limit=7, max_turns_per_hand=300, untaken_pozzetto_as_stock=True,
               clean_bonus=300, dirty_bonus=150, closing_bonus=50, pozzetto_penalty=0,
               target_score=1505, pile_close_no_bonus=True, pile_meld_source="from_pile",
               three_player_pozzetto_a_size=15, three_player_pair_share="half_round_up",
               three_player_switch_at=500, three_player_target=1505)


@pytest.mark.parametrize("rules", [Rules(), VARIED, *(Rules.preset(p) for p in PRESETS)])
def test_vector_round_trips(rules):
    assert Rules.from_vector(rules.to_vector()) == rules


def test_varied_vector_hand_worked():
    v = VARIED.to_vector()
    assert v[L.RV_SET_RANKS_MASK] == 1 | 1 << 2 | 1 << 12
    assert v[L.RV_THREE_PLAYER_MODE] == 1 and v[L.RV_SEMI_CLEAN_BONUS] == 150
    assert v[L.RV_CLOSING_BONUS] == 50 and v[L.RV_POZZETTO_PENALTY] == 0
    assert v[L.RV_THREE_PLAYER_POZZETTO_A_SIZE] == 15 and v[L.RV_NUM_PLAYERS] == 3


def test_from_vector_refuses_a_bad_vector():
    with pytest.raises(ValueError, match="rules: a rules vector has 29 slots"):
        Rules.from_vector(np.zeros(5, np.int64))
    v = Rules().to_vector()
    v[L.RV_STOCK_END_MODE] = 2
    with pytest.raises(ValueError, match=r"rules: stock_end_mode must be an index in 0\.\.1"):
        Rules.from_vector(v)
    v = Rules().to_vector()
    v[L.RV_CLEAN_BONUS] = 7
    with pytest.raises(ValueError, match="rules: clean_bonus must be"):
        Rules.from_vector(v)


def test_docs_options_table_is_generated():
    """``python -m kernels.core.options`` leaves docs/rule_sets.md as committed."""
    text = O.DOC_PAGE.read_text(encoding="utf-8")
    assert O.options_doc(text) == text
    for o in O.OPTIONS:
        assert f"| `{o.name}` | {o.allowed}" in text


def test_docs_regeneration_replaces_a_stale_table(tmp_path):
    page = tmp_path / "page.md"
    begin, end = O.DOC_MARKERS
    page.write_text(f"# t\n{begin}| stale |\n{end}after\n", encoding="utf-8")
    assert O.main([str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert "stale" not in text and text.endswith(f"{end}after\n")
    assert sum(line.startswith("| `") for line in text.splitlines()) == len(O.OPTIONS)
    page.write_text("# no markers\n", encoding="utf-8")
    with pytest.raises(ValueError, match="two markers"):
        O.main([str(page)])
    assert page.read_text(encoding="utf-8") == "# no markers\n"


def test_parse_assignment_follows_the_kind():
    assert Rules.parse_assignment("semi_clean_bonus=off") == ("semi_clean_bonus", None)
    assert Rules.parse_assignment("semi_clean_bonus=150") == ("semi_clean_bonus", 150)
    assert Rules.parse_assignment("lock_two_roles=yes") == ("lock_two_roles", True)
    assert Rules.parse_assignment("set_ranks=A, 3") == ("set_ranks", ("A", "3"))
    assert Rules.parse_assignment("stock_end_mode=immediate") == ("stock_end_mode", "immediate")
    with pytest.raises(ValueError, match="rules: hand_size must be an integer, got 'x'"):
        Rules.parse_assignment("hand_size=x")


def test_command_options_round_trip_every_option():
    args = VARIED.command_options()
    assert args[:4] == ["--rules", "fibur_international", "--players", "3"]
    pairs = dict(Rules.parse_assignment(a) for a in args[5::2])
    base = Rules.preset("fibur_international").replace(num_players=3)
    assert base.replace(**pairs) == VARIED


# ============================================================== overlap check
def test_check_family_refuses_a_shared_slot():
    with pytest.raises(AssertionError, match="RV: B and A share slot 1"):
        check_family("RV", {"A": 1, "B": 1}, 2)


def test_check_family_refuses_a_slot_beyond_the_length():
    with pytest.raises(AssertionError, match=r"HP: X = 3 is outside 0\.\.2"):
        check_family("HP", {"X": 3}, 3)
    with pytest.raises(AssertionError, match=r"HP: X = -1 is outside"):
        check_family("HP", {"X": -1}, 3)
    check_family("HP", {"X": 0, "Y": 2}, 3)


# ============================================================== chooser parameters
def test_heuristic_table_gives_slots_defaults_limits_and_steps():
    from kernels.core import params as P
    from kernels.search import player
    from sim import strategies as S
    from sim.experiments.tuning import INITIAL_STEPS
    assert [p.slot for p in P.HEURISTIC_PARAMS] == list(range(17))
    assert [p.slot for p in P.ROLLOUT_PARAMS] == list(range(17, 28)) and L.N_PARAMS == 28
    for p in P.HEURISTIC_PARAMS:
        assert getattr(L, P.hp_name(p)) == p.slot
        assert S.HEURISTIC.params[p.name] == (p.slot, p.default, p.doc)
        assert S.HEURISTIC_LIMITS[p.name] == (p.lo, p.hi, p.whole)
        assert INITIAL_STEPS[p.name] == p.step > 0
    assert list(S.ROLLOUT.params) == [p.name for p in P.HEURISTIC_PARAMS + P.ROLLOUT_PARAMS]
    # hand-checked values of the table
    assert (L.HP_PILE_THRESHOLD, S.HEURISTIC.params["pile_threshold"][1]) == (1, 1.0)
    assert S.HEURISTIC_LIMITS["pile_threshold"] == (0, 1000, False)
    assert INITIAL_STEPS["pile_threshold"] == 0.5
    assert (player.RP_WORLDS, player.RP_PICKUP, player.RP_MARGIN) == (17, 19, 23)
    assert S.ROLLOUT.limits["max_candidates"] == (2, 16308, True)
    assert S.ROLLOUT.vector()[player.RP_ROLLOUTS] == 120.0          # sequential halving's
    assert (S.ROLLOUT.vector()[player.RP_WORLDS], S.ROLLOUT.vector()[player.RP_HALVING]) == \
        (256.0, 1.0)


@pytest.mark.parametrize("module,family", [
    ("kernels.core.layout", "RV_"), ("kernels.core.layout", "HP_"), ("kernels.core.layout", "TC_"),
    ("kernels.table.state", "MI_"), ("kernels.table.state", "EVC_"), ("kernels.table.work", "W_"),
])
def test_families_have_distinct_slots(module, family):
    """Each family's constants are distinct (the import-time check_family covers the lengths)."""
    import importlib
    mod = importlib.import_module(module)
    values = {k: v for k, v in vars(mod).items() if k.startswith(family) and isinstance(v, int)
              and k not in ("MI_COLS", "W_G")}
    assert len(values) >= 8 and len(set(values.values())) == len(values)


def test_state_fields_keep_the_saved_layout():
    """The readable names index the same words as before (positions and buffers are saved)."""
    from kernels.table import state as S
    assert (S.G_STOCK_TOP, S.G_STOCK_END, S.G_PILE_SIZE, S.G_NEXT_POZZETTO) == (0, 1, 2, 3)
    assert (S.G_POZZETTO_TAKEN, S.G_POZZETTO_TURN, S.G_POZZETTO_MODE) == (7, 10, 13)
    assert (S.G_POZZETTO_HIDDEN, S.G_PILE_PICKUPS, S.G_PILE_CARDS, S.G_ERRORS) == (16, 20, 23, 26)
    assert (S.G_POZZETTO_SIZE, S.G_EVENT_ROWS, S.G_EVENT_CARDS, S.G_TEAM) == (29, 33, 34, 35)
    assert (S.G_N_POZZETTI, S.G_SOLO_SEAT, S.G_SOLO_18, S.G_OPEN_ROW, S.G_LEN) == (39, 40, 41, 50, 51)


def test_state_family_check_catches_a_shared_word():
    """A field of several words that runs into the next one is refused."""
    with pytest.raises(AssertionError, match="G: G_B and G_A share slot 3"):
        check_family("G", {"G_A": (0, 4), "G_B": (3, 1)}, 5)


def test_work_views_are_named():
    from kernels.table.work import WorkViews
    assert WorkViews._fields == ("state", "rules", "params", "kinds", "rng", "deck", "sel",
                                 "scratch", "need", "vals", "side_counts", "candidates", "debug")


# ============================================================== written-out slot constants
@pytest.mark.parametrize("module, family", [("kernels.core.layout", "RV"),
                                            ("kernels.core.layout", "HP"),
                                            ("kernels.table.state", "G")])
def test_written_constants_are_their_table(module, family):
    """Every slot constant is written out as ``NAME = index`` (greppable, known to linters)
    and is exactly its table's: one line per table row, in index order."""
    import importlib
    from kernels.core.slots import block_text
    mod = importlib.import_module(module)
    slots = mod.GENERATED[family] if family != "G" else mod.G_SLOTS
    assert len(slots) == {"RV": 29, "HP": len(L.GENERATED["HP"]), "G": 33}[family]
    text = open(mod.__file__).read()
    assert block_text(family, slots, f"python -m {module}") in text
    for name, at in slots.items():
        assert f"\n{name} = {at}\n" in text and getattr(mod, name) == at


def test_a_stale_written_constant_is_refused_and_written_again(tmp_path):
    """A block that no longer matches its table fails the import-time check with the
    command that fixes it; that command's writer restores the block."""
    from kernels.core.slots import check_block, write_block
    src = open(L.__file__).read()
    copy = tmp_path / "layout.py"
    copy.write_text(src.replace("\nRV_HAND_SIZE = 1\n", "\nRV_HAND_SIZE = 2\n"))
    with pytest.raises(AssertionError, match=r"RV constants differ .*'RV_HAND_SIZE = 1'.*"
                                             r"run python -m kernels.core.layout"):
        check_block(copy, "RV", L.GENERATED["RV"], L.WRITE_COMMAND)
    assert write_block(copy, "RV", L.GENERATED["RV"], L.WRITE_COMMAND) is True
    assert copy.read_text() == src
    check_block(copy, "RV", L.GENERATED["RV"], L.WRITE_COMMAND)
    assert write_block(copy, "RV", L.GENERATED["RV"], L.WRITE_COMMAND) is False
    copy.write_text(src.replace("# -- end of RV\n", ""))
    with pytest.raises(ValueError, match="no single block of generated RV constants"):
        write_block(copy, "RV", L.GENERATED["RV"], L.WRITE_COMMAND)
