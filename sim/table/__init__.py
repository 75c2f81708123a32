"""Queries about one hand's table: meld validity and lay-offs
(:mod:`sim.table.melds`), hand scoring (:mod:`sim.table.scoring`) and a
position's legal moves (:mod:`sim.table.position`).  Imports only the layers
below it (:mod:`sim.core`, :mod:`sim._util`) and the kernels.
"""
