"""OpenSpiel's ISMCTS against the built-in `expert` on python_burraco (docs/rl.md).

Each deal is played twice, ISMCTS on one side and then on the other, so the luck of
the deal cancels out; the margin is ISMCTS's side's hand score minus expert's side's
(points), with its 95% interval over the deals:

    python examples/openspiel_ismcts.py                     # 200 hands, two players
    python examples/openspiel_ismcts.py --hands 20 --players 4 --simulations 100

ISMCTS (open_spiel.python.algorithms.ismcts.ISMCTSBot) searches worlds sampled by
the game's resample_from_infostate (sim.Game.sample_world) and evaluates a leaf
by playing the hand out with the kernels' `heuristic` (sim.envs.openspiel_game.
PlayoutEvaluator; --evaluator random for OpenSpiel's random rollouts, far slower).
Needs the rl extra: pip install -e ".[rl]".
"""
from __future__ import annotations

import math
import sys
import time

import numpy as np


def parse(argv=None):
    from sim._util.text import OneLineParser        # refusals in one line, exit 2 (no usage block)
    p = OneLineParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=200,
                   help="hands to play, an even number of at least 4: each deal twice, and "
                        "the 95%% interval needs two deals (default 200)")
    p.add_argument("--players", type=int, default=2, choices=(2, 4),
                   help="2 or 4 players (4: ISMCTS plays both seats of its side)")
    p.add_argument("--simulations", type=int, default=40,
                   help="ISMCTS simulations per decision (default 40)")
    p.add_argument("--uct-c", type=float, default=2.0, help="UCT exploration constant")
    p.add_argument("--evaluator", choices=("playout", "random"), default="playout",
                   help="leaf evaluation: a heuristic playout in the kernels or random rollouts")
    p.add_argument("--opponent", default="expert", help="the built-in opponent (default expert)")
    p.add_argument("--seed", type=int, default=1, help="seed of the deals and of the search")
    a = p.parse_args(argv)
    if a.hands < 4 or a.hands % 2:
        p.error(f"--hands: {a.hands} is not an even number >= 4 (each deal is played twice, "
                "and the margin's 95% interval needs at least two deals)")
    if a.simulations < 1:
        p.error(f"--simulations: {a.simulations} is not >= 1")
    from sim.strategies import resolve_for
    try:
        resolve_for("--opponent", a.opponent)
    except ValueError as exc:
        p.error(" ".join(str(exc).split()))
    return a


def play_hand(game, deal, ismcts_side, bot, rng):
    """One hand: the seats of ``ismcts_side`` search, the others play the game's built-in
    strategy (``game.strategy``); returns ISMCTS's side's margin (points) and the state."""
    from sim.envs import seat_scores
    state = game.new_initial_state()
    state.apply_action(deal)
    g = state.game
    n = game.num_players()
    searching = {s for s in range(n) if g.team_of(s) == ismcts_side}
    while not state.is_terminal():
        seat = state.current_player()
        if seat in searching:
            a = bot.step(state)
        else:
            a = state.game.choose()
        state.apply_action(int(a))
    scores = seat_scores(state.game)
    mine = next(iter(searching))
    other = next(s for s in range(n) if s not in searching)
    return scores[mine] - scores[other], state


def main(argv=None) -> int:
    args = parse(argv)
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import sim.envs.openspiel_game as og

    deals = args.hands // 2
    game = pyspiel.load_game("python_burraco", {
        "players": args.players, "deal_seed": args.seed, "deals": deals,
        "strategy": args.opponent})
    rng = np.random.RandomState(args.seed)
    evaluator = (og.PlayoutEvaluator("heuristic") if args.evaluator == "playout"
                 else mcts.RandomRolloutEvaluator(1, rng))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=args.uct_c,
                           max_simulations=args.simulations, random_state=rng)
    # sampled worlds from the bot's own generator, so that a run is reproducible
    bot.set_resampler(lambda state, player: state.resample_from_infostate(
        player, rng.uniform))
    t0 = time.perf_counter()
    per_deal = []
    for d in range(deals):
        m0, _ = play_hand(game, d, 0, bot, rng)
        m1, _ = play_hand(game, d, 1, bot, rng)
        per_deal.append((m0 + m1) / 2.0)
        if (d + 1) % max(1, deals // 10) == 0:
            print(f"  {2 * (d + 1)} hands, mean so far {np.mean(per_deal):+.1f}",
                  file=sys.stderr, flush=True)
    x = np.asarray(per_deal, float)
    mean = float(x.mean())
    half = 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x))     # two deals at least (parse)
    print(f"ISMCTS ({args.simulations} simulations, {args.evaluator} evaluator) minus "
          f"{args.opponent}, {args.players} players: {mean:+.1f} points a hand, 95% interval "
          f"[{mean - half:+.1f}, {mean + half:+.1f}], {args.hands} hands ({deals} deals, "
          f"seats swapped), {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
