"""Runs of many hands: the run directory (:mod:`sim.runs.rundir`), the
working directories of sweeps and tunings (:mod:`sim.runs.workdir`), the
executors, ``simulate`` (:mod:`sim.runs.runner`), reading a run back
(:mod:`sim.runs.read`), its summary and the replay of one of its hands
(:mod:`sim.runs.replay`).  Imports only :mod:`sim.play` and the layers below it.
"""
