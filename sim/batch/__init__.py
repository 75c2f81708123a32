"""Runs of many hands: the run directory (:mod:`sim.batch.rundir`), the
working directories of sweeps and tunings (:mod:`sim.batch.workdir`), the
executors, ``simulate`` (:mod:`sim.batch.runner`), reading a run back
(:mod:`sim.batch.read`), its summary and the replay of one of its hands
(:mod:`sim.batch.replay`).  Imports only :mod:`sim.play` and the layers below it.
"""
