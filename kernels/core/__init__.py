"""Cards, randomness and melds: what a hand is made of.

Card encoding and values (:mod:`.cards`), the bit tricks (:mod:`.bits`), the
per-hand random generator (:mod:`.rng`), the integer layouts shared with the
Python driver (:mod:`.layout`: rules vector, record columns, policy table),
meld analysis and lay-off (:mod:`.melds`, R13-R33), the deal (:mod:`.deal`,
R8, R61-R63) and the thread pool of the batch loops (:mod:`.threads`).

Imports only :mod:`kernels.build`.
"""
