"""The compile and cache machinery of the kernels: no kernel lives here."""
