"""Position files: one seat's view of a hand at a decision.

A *position* is what one seat may know at a decision of a hand (R11): the
rules, the seat to move and the phase, the seat's own hand, every meld with
its side, the discard pile bottom first, every hand size, the stock size, the
pozzetti taken and left, the card barred by R36, the cards known to be in the
other hands (taken with the pile), the turn, the dealer and optional match
totals.  It is a plain dict, written as TOML or JSON (format in
``docs/positions.md``, example in ``examples/position.toml``)::

    >>> from sim import positions
    >>> pos = positions.load("examples/position.toml")
    >>> g = Game.from_position(pos, seed=3)      # the unseen cards dealt at random
    >>> positions.dump(g.to_position(pos["seat"])) == positions.dump(pos)
    True

:func:`load` reads a file, a text or a dict and returns the position in its
canonical form (every field present, cards as ``"10♥"``, ``"JK"``);
:func:`dump` writes it (TOML or JSON), so ``dump(load(dump(p))) == dump(p)``.
:func:`to_game` (``Game.from_position``) builds a complete game consistent
with the view, the unseen cards dealt uniformly among the unseen places (the
other hands beyond their known cards, the stock and the untaken pozzetti,
:func:`kernels.table.worlds.sample_world`); :func:`from_game` (``Game.to_position``)
writes the view of a game.  An impossible position raises a one-line
``ValueError`` that names the field.
"""
from __future__ import annotations

from sim.play.game import Game
from sim.play.position_build import from_game
from sim.play.position_file import FORMAT, PHASES, dump, load, normalize, rules_table

__all__ = ["FORMAT", "PHASES", "load", "dump", "normalize", "rules_table", "to_game", "from_game"]


def to_game(position, seed: int = 0, strategies="heuristic") -> Game:
    """A complete game consistent with the position (``Game.from_position``).

    The given cards are where the position puts them; every other card (the
    other hands beyond their known cards, the stock, the untaken pozzetti) is
    dealt uniformly at random among those places, from ``seed``
    (:func:`kernels.table.worlds.sample_world`).  When the seat to move is not the
    viewer, worlds in which it has no legal action are drawn again.

    Parameters
    ----------
    position : dict, str or os.PathLike
        Anything :func:`load` reads.
    seed : int
        The deal of the unseen cards (and the game's later random choices).
    strategies : str, sequence or dict
        Each seat's built-in strategy, as in ``Game.new``.

    Returns
    -------
    sim.Game
        Waiting for the position's decision; ``seed`` is ``seed``,
        ``hand_index`` 0, ``sampled_for`` the viewer (it has no replay
        document), ``match_totals`` the position's totals or None.

    Raises
    ------
    ValueError
        The position is impossible: a third copy of a card (or a fifth
        joker), counts that do not add up to the 108-card deck, an invalid
        meld, a phase that cannot follow, a seat out of range, pozzetti that
        do not fit the rules ...; the one-line message names the field.
    """
    return Game.from_position(position, seed=seed, strategies=strategies)
