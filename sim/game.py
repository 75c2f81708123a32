"""``sim.game``: the public path of the step API; the module itself is
:mod:`sim.play.game` (``from sim.game import Game, A_DRAW, action_kind, ...`` as in
docs/step_api.md gives the same objects)."""
import sys

from sim.play import game as _game

sys.modules[__name__] = _game
