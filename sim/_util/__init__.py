"""The lowest layer of :mod:`sim`: helpers that know nothing of Burraco.

text (one-line errors and plurals), progress (the progress bar), lock (a
directory's writer lock), compiling (the announcements of a first compile),
output (the output directory's refusals and atomic writes) and stats (the
intervals and sequential statistics of the comparisons and analyses).
"""
