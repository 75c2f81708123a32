"""The independent referee re-checks 5,000 simulated hands of each strategy
(every action against RULES.md, then both scores) with zero violations.

Outside CI the same driver scales up: ``python -m tests.referee --hands 1000000``.
"""
import pytest

import referee_cli

#: 5,000 hands of each strategy refereed: about 35 s each on two cores
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("strategy, seed", [("heuristic", 20261129), ("random", 20261130)])
def test_referee_5000_hands(strategy, seed, capsys):
    rc = referee_cli.main(["--hands", "5000", "--seed", str(seed), "--strategy", strategy,
                           "--jobs", "2"])
    out = capsys.readouterr().out
    assert "refereed 5000 hands" in out
    assert rc == 0, out[-3000:]
