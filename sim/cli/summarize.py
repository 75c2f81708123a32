"""``burraco summarize``: summary and integrity of a run directory (finished or partial);  --repair rebuilds its manifest."""
from __future__ import annotations

import argparse
import os
from pathlib import Path


def add_parser(sub) -> argparse.ArgumentParser:
    """Add the ``summarize`` sub-command and its options to the sub-parsers ``sub``."""
    p = sub.add_parser(
        "summarize", help="summary and integrity of a run directory (finished or partial); "
                          "--repair rebuilds its manifest",
        description="Check every shard of DIR against its manifest (unreadable, truncated or "
                    "foreign shards are reported, never read), list every file that is not "
                    "part of the run (stray files in DIR/hands or DIR/matches, which plain "
                    "Parquet readers would read, and other files beside it), and print the "
                    "progress and the same summary as the end of 'burraco simulate' for the "
                    "complete shards (for a match run, the matches and their hands). "
                    "Exit code 1 if a shard is corrupt or a file is stray. --repair rebuilds "
                    "a damaged, missing or hand-edited manifest from the shards. For the "
                    "directory of 'burraco sweep' or 'burraco tune': its progress, problems "
                    "and other files, and --repair rebuilds its _sweep.json or _tune.json.")
    p.add_argument("out", metavar="DIR",
                   help="output directory of 'burraco simulate', 'burraco sweep' or "
                        "'burraco tune'")
    p.add_argument("--repair", action="store_true",
                   help="rebuild DIR/_manifest.json from the configuration every shard carries "
                        "(the old one is kept as _manifest.json.replaced-TIME; no shard is "
                        "simulated again or deleted); also moves a run of the first layout "
                        "(shards beside the manifest) into DIR/hands and DIR/matches; for a "
                        "sweep or tuning, rebuilds _sweep.json or _tune.json from its point "
                        "or log files (and moves an earlier sweep's point files into "
                        "DIR/points)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``burraco summarize``; the exit code."""
    from pathlib import Path

    from sim.batch.read import summarize_run
    from sim.batch.repair import repair_run

    kind = None
    if os.path.isdir(args.out) and not os.path.exists(os.path.join(args.out, "_manifest.json")):
        kind = kind_of_directory(Path(args.out))
    if kind is not None:                 # a sweep's or a tuning's directory
        if kind == "sweep":
            from sim.experiments.sweeps import repair_sweep as repair, sweep_status as status
        else:
            from sim.experiments.tuning import repair_tuning as repair, tuning_status as status
        if args.repair:
            print(repair(args.out).format())
        text, sound = status(args.out)
        print(text)
        return 0 if sound else 1
    if args.repair:
        print(repair_run(args.out).format())
    summary, status = summarize_run(args.out)
    print(status.format())
    if summary.hands:
        print(summary.format())
    return 1 if (status.corrupt or status.stray or status.manifest_problem) else 0


def kind_of_directory(out: Path) -> str | None:
    """``"sweep"`` or ``"tuning"`` when ``out`` holds one's state or data, else None."""
    from sim.experiments.sweeps import LAYOUT as SWEEP
    from sim.experiments.tuning import LAYOUT as TUNE
    for layout in (SWEEP, TUNE):
        if (out / layout.state).exists() or (out / layout.data).is_dir():
            return layout.what
    if any(SWEEP.file_re().fullmatch(p.name) for p in out.iterdir()):
        return SWEEP.what
    return None
