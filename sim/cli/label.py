"""``burraco label``: the search's values at every searched decision, as Parquet shards of a
run directory (:mod:`sim.batch.labels`, docs/labels.md)."""
from __future__ import annotations

import argparse
import os
import sys

from sim._util.text import plural
from sim.cli.common import _count, _rules, _rules_options, _stopped

#: sim.batch.labels.DEFAULT_TEACHER, written here so that building the parser loads no batch
#: module (a test keeps the two equal)
DEFAULT_TEACHER = "rollout:halving=1,worlds=256,rollouts=120,pickup_share=1"


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``label`` sub-command and its options to the sub-parsers ``sub``."""
    p = sub.add_parser(
        "label", help="play hands with the search on every seat and write its values per "
                      "searched decision (a dataset of labels)",
        description="Play hands 0..N-1 of a label seed with a rollout search (the teacher) on "
                    "every seat and write, per searched decision, the seat's observation, the "
                    "candidates and each one's mean rollout result, standard error and worlds "
                    "to DIR/labels as Parquet shards with a DIR/_manifest.json (docs/labels.md). "
                    "Hand i of label seed S is the deal 2**62+i of S, which no simulate, "
                    "compare, sweep, tune or analyze run deals. Running the same command again "
                    "resumes an interrupted run (options left out are taken from the manifest); "
                    "another teacher, seed or rules in DIR is refused, and so is a second "
                    "process writing DIR.")
    p.add_argument("--hands", type=_count, metavar="N",
                   help="number of hands to label (e.g. 2000); more than the run in DIR holds "
                        "extends it")
    p.add_argument("--seed", type=int, metavar="S",
                   help="label seed, 0 <= S < 2**64 (required for a new run)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="run directory: DIR/labels (Parquet shards, one row per searched "
                        "decision) and DIR/_manifest.json")
    p.add_argument("--strategy", metavar="SPEC",
                   help=f"the teacher, a rollout spec played on every seat (default "
                        f"{DEFAULT_TEACHER}; the manifest records it with every parameter)")
    p.add_argument("--shard-size", type=int, metavar="K",
                   help="hands per shard (default 100, or the run's when resuming)")
    p.add_argument("--threads", type=int, metavar="T",
                   help="threads, each labelling one hand at a time (default: all cores)")
    _rules_options(p)
    p.add_argument("--overwrite", action="store_true",
                   help="replace the run in DIR instead of resuming or refusing")
    p.add_argument("--quiet", action="store_true",
                   help="no progress output on stderr (the summary is still printed)")
    p.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="local: this process (default); dask: one task per shard on a Dask "
                        "cluster (a LocalCluster unless --scheduler); needs the 'cluster' extra")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="address of a running Dask scheduler (implies --executor dask); DIR "
                        "must be a path every worker can write")
    p.add_argument("--workers", type=int, metavar="W",
                   help="worker processes of the LocalCluster of --executor dask (default 2)")
    p.set_defaults(func=run)
    return p


def _resume_defaults(args: argparse.Namespace) -> None:
    """Fill --hands, --seed, --strategy and the rules left out from the manifest of the run
    in --out; a new run needs --hands and --seed."""
    from sim.batch.labels import label_manifest

    try:
        manifest = label_manifest(args.out)
    except ValueError:
        if args.hands is None or args.seed is None:
            raise
        manifest = None                 # the runner refuses it in one line
    if manifest is None:
        if args.hands is None or args.seed is None:
            what = "--hands N" if args.hands is None else "--seed S"
            raise ValueError(f"give {what}; {args.out!r} holds no label run to resume")
        return
    config = manifest["config"]
    if args.hands is None:
        args.hands = int(config["hands"])
    if args.seed is None:
        args.seed = int(config["seed"])
    if args.strategy is None:
        args.strategy = config["teacher"]
    if args.rules is None:
        args.rules_dict = config["rules"]


def run(args: argparse.Namespace) -> int:
    """Run ``burraco label``; the exit code."""
    from sim.batch.labels import hands_done, label_run

    _resume_defaults(args)
    shards = []
    try:
        summary = label_run(args.hands, args.seed, args.strategy or DEFAULT_TEACHER,
                            rules=_rules(args), out=args.out, shard_size=args.shard_size,
                            threads=args.threads, progress=not args.quiet,
                            overwrite=args.overwrite, executor=args.executor,
                            scheduler=args.scheduler, workers=args.workers,
                            callback=lambda s: shards.append(s.stop - s.start))
    except KeyboardInterrupt as exc:
        what, code = _stopped(exc)
        done = max(sum(shards), hands_done(args.out))
        print(f"burraco: {what}; {plural(done, 'hand')} in completed shards kept in "
              f"{args.out!r}; run the same command again to resume", file=sys.stderr)
        return code
    print(summary.text())
    labels = os.path.join(args.out, "labels")
    print(f"labels: {labels} (sim.batch.labels.load_labels({args.out!r}), or "
          f"pd.read_parquet({labels!r}))")
    print(f"train on them: burraco train --labels {args.out} --seed 1 --out model.npz")
    return 0

