"""``burraco train``: train the ``learned`` strategy's network on label runs."""
from __future__ import annotations

import argparse


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``train`` sub-command and its options to the sub-parsers ``sub``."""
    p = sub.add_parser(
        "train", help="train the learned strategy's network on label runs (burraco label)",
        description="Read the pickup and discard decisions of label runs (Parquet written by "
                    "'burraco label'), train the learned strategy's network (numpy, Adam) by a "
                    "per-decision regression on the candidates' rollout means centred on the "
                    "decision's mean, weighted by 1/SE^2 (capped), and write the weights file "
                    "FILE with its provenance FILE.json (the label runs, the teacher, the "
                    "seed and settings, the commit, the held-out loss, regret and top-1). A "
                    "share of the hands is held out whole; progress and the held-out figures "
                    "are printed after every epoch. Play it as learned:model=FILE "
                    "(docs/strategies.md).")
    p.add_argument("--labels", nargs="+", required=True, metavar="DIR",
                   help="label run directories (every *.parquet under each is read)")
    p.add_argument("--seed", type=int, required=True, metavar="S",
                   help="training seed: the held-out split, the initial weights and the batches")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="the weights file to write (.npz); its provenance goes beside it (.json)")
    p.add_argument("--epochs", type=int, default=20, metavar="N", help="passes over the "
                   "training decisions (default 20)")
    p.add_argument("--hidden", default=None, metavar="H1[,H2]",
                   help="hidden layer widths (default 64,32, or --init's; one number: one "
                        "hidden layer)")
    p.add_argument("--init", default=None, metavar="MODEL",
                   help="start from this network's weights instead of random ones (fine-tuning "
                        "on more labels): a shipped version such as v2 or a weights file; its "
                        "widths and candidate term are kept, and the provenance names it")
    p.add_argument("--batch", type=int, default=256, metavar="B",
                   help="decisions per Adam step (default 256)")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam's step size (default 0.001)")
    p.add_argument("--se-floor", type=float, default=5.0, metavar="POINTS",
                   help="a candidate's weight is 1/max(SE, this)^2 (default 5 points)")
    p.add_argument("--held-out", type=float, default=0.1, metavar="SHARE",
                   help="share of the hands held out (default 0.1)")
    p.add_argument("--no-candidate-term", dest="candidate_term", action="store_false",
                   help="train without the candidate term (each discard's and the pile's "
                        "features, docs/strategies.md): a features-version-1 network like "
                        "learned-v1")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``burraco train``; the exit code."""
    from sim.strategies import train
    hidden = None                       # the default: --init's widths, else 64,32
    if args.hidden is not None:
        try:
            hidden = tuple(int(x) for x in args.hidden.split(","))
        except ValueError:
            raise ValueError(f"--hidden: expected H1 or H1,H2 (whole numbers), got "
                             f"{args.hidden!r}") from None
        if not 1 <= len(hidden) <= 2 or min(hidden) < 1:
            raise ValueError(f"--hidden: expected one or two positive widths, got "
                             f"{args.hidden!r}")
    if not str(args.out).endswith(".npz"):
        raise ValueError(f"--out: a weights file's name ends in .npz, got {str(args.out)!r}")
    for name, value, ok, allowed in (("--epochs", args.epochs, args.epochs >= 1, "at least 1"),
                                     ("--batch", args.batch, args.batch >= 1, "at least 1"),
                                     ("--held-out", args.held_out, 0 <= args.held_out < 1,
                                      "in [0, 1)"),
                                     ("--lr", args.lr, args.lr > 0, "above 0"),
                                     ("--se-floor", args.se_floor, args.se_floor > 0, "above 0")):
        if not ok:
            raise ValueError(f"{name} must be {allowed}, got {value:g}")
    train.run(args.labels, args.seed, args.out, hidden=hidden, epochs=args.epochs,
              batch=args.batch, lr=args.lr, se_floor=args.se_floor, held_out=args.held_out,
              candidate_term=args.candidate_term, init_model=args.init)
    return 0
