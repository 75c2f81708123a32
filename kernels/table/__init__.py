"""The state of a hand on the table and its work buffer.

The state array and its field slots (:mod:`.state`), the work buffer a hand's
arrays are borrowed from (:mod:`.work`), sampled worlds for hidden
information (:mod:`.worlds`), hand scoring (:mod:`.scoring`, R55-R57) and the
deal features of a hand (:mod:`.deal_features`).

Imports :mod:`kernels.core` and below.
"""
