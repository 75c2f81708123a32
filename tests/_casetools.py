"""Shared helpers of the data-driven rules tests (tests/data/*.toml).

The data files are self-contained copies inside the project (tests never read ../shared).
Card texts of one case are parsed together (``sim.notation.parse_many`` when available), so
a card written twice in one case is the two physical copies of R1.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import numpy as np

DATA = Path(__file__).parent / "data"

#: a rule ID in a reason string ("R14", "D4"; "L.." is tolerated)
RULE_ID = re.compile(r"\b[RDL]\d+\b")


def load(name: str) -> dict:
    """Parse ``tests/data/<name>`` (TOML)."""
    with open(DATA / name, "rb") as fh:
        return tomllib.load(fh)


def case_files(pattern: str = "cases_*.toml") -> list:
    """Every case batch copied into tests/data, sorted by name."""
    return sorted(DATA.glob(pattern))


# ----------------------------------------------------------------------------- rules
def make_rules(case: dict):
    """Rules object of a case: ``preset = "name"`` and/or ``rules = {option = value}``.

    ``rules`` given as a list (cases_001 style) is a list of cited rule IDs, not options.
    Returns None for the default rule set.
    """
    from sim import Rules

    preset = case.get("preset")
    opts = case.get("rules")
    if not isinstance(opts, dict):
        opts = None
    if preset is None and not opts:
        return None
    base = Rules.preset(preset) if preset is not None else Rules()
    return base.replace(**opts) if opts else base


def cited_rules(case: dict) -> list:
    """Rule IDs a case cites: ``rules = ["R2", ...]`` (batch 001) or ``rule = "R14, R24"``
    (batch 002, where ``rules`` holds options)."""
    if isinstance(case.get("rules"), list):
        return list(case["rules"])
    return RULE_ID.findall(case.get("rule", ""))


def describe_rules(case: dict) -> str:
    parts = []
    if case.get("preset"):
        parts.append(case["preset"])
    if isinstance(case.get("rules"), dict):
        parts += [f"{k}={v}" for k, v in case["rules"].items()]
    return ",".join(parts) or "default"


# ----------------------------------------------------------------------------- cards
def parse_group(texts: list) -> list:
    """Parse several card texts drawn from ONE 108-card deck (distinct physical copies)."""
    from sim import notation

    if hasattr(notation, "parse_many"):
        return [np.asarray(a) for a in notation.parse_many(texts)]
    # fallback: parse the concatenation and split by token counts
    counts = [len(t.replace(",", " ").split()) for t in texts]
    joined = notation.parse(" ".join(texts))
    out, k = [], 0
    for n in counts:
        out.append(np.asarray(joined[k:k + n]))
        k += n
    return out


def face_key(card_id: int) -> int:
    """Face of a card id with the two joker faces folded together (R1: copies are equal)."""
    f = int(card_id) % 54
    return 52 if f >= 52 else f


def faces(ids) -> list:
    """Sorted multiset of faces (jokers folded) of a card-id array."""
    return sorted(face_key(c) for c in np.asarray(ids).ravel().tolist())


def pick_from(hand_ids, wanted_ids, used: set) -> list:
    """Hand ids matching ``wanted_ids`` by face, first unused copy first."""
    out = []
    hand = [int(c) for c in np.asarray(hand_ids).ravel()]
    for w in np.asarray(wanted_ids).ravel().tolist():
        for i, h in enumerate(hand):
            if i not in used and face_key(h) == face_key(w):
                used.add(i)
                out.append(h)
                break
        else:
            raise AssertionError(f"test data: card id {w} is not in the hand")
    return out


def cards_from_hand(hand_ids, text: str) -> np.ndarray:
    """Ids of the cards named by ``text``, taken from the hand (R1 copies resolved by face)."""
    from sim import notation

    return np.array(pick_from(hand_ids, notation.parse(text), set()), dtype=np.asarray(hand_ids).dtype)


# ----------------------------------------------------------------------------- assertions
def assert_cites(reason, allowed: list, what: str = "") -> None:
    """``reason`` must be a str citing at least one of ``allowed`` rule IDs."""
    assert isinstance(reason, str) and reason, f"{what}: illegal verdict without a reason ({reason!r})"
    cited = set(RULE_ID.findall(reason))
    # "R16/R17" style citations: also split on '/'
    cited |= {f"R{n}" for n in re.findall(r"/(\d+)\b", reason)}
    assert cited & set(allowed), (
        f"{what}: reason {reason!r} cites {sorted(cited) or 'no rule'}, expected one of {allowed}")
