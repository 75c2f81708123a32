"""The statistics the comparisons and the analyses share: the two-sided 95% normal
quantile, the probability that each candidate is the best (:func:`p_best`) and the
Wilson interval of a share (:func:`wilson`).
"""
from __future__ import annotations

import numpy as np


Z95 = 1.959963984540054          # two-sided 95% quantile of the normal distribution


P_BEST_DRAWS = 20_000            # draws of the normal approximation for p_best


# ---------------------------------------------------------------- statistics
def p_best(result: np.ndarray, seed: int, draws: int = P_BEST_DRAWS) -> np.ndarray:
    """float64[C]: the share of draws of N(mean, cov / W) in which each column of
    ``result`` (``float64[W, C]``: one row per world, one column per candidate) is the
    highest, ``mean`` and ``cov`` the columns' means and covariance over the worlds: the
    normal approximation of the chance that each candidate is the best (``p_best`` of
    docs/analyze.md), from ``draws`` draws seeded by ``seed``.

    Candidates whose results are equal on every world (the rollout strategy
    plays on alike) are one candidate for the draws and share its probability
    equally; other ties within a draw share the draw.
    """
    w, c = result.shape
    distinct, group = np.unique(result.T, axis=0, return_inverse=True)
    group = group.reshape(-1)
    k = distinct.shape[0]
    if k == 1:
        return np.full(c, 1.0 / c)
    r = distinct.T                                          # [W, k]
    mean = r.mean(axis=0)
    cov = np.atleast_2d(np.cov(r, rowvar=False, ddof=1)) / w
    lam, vec = np.linalg.eigh(cov)
    root = vec * np.sqrt(np.clip(lam, 0.0, None))          # cov = root @ root.T
    rng = np.random.default_rng(np.random.SeedSequence([seed, 14]))
    wins = np.zeros(k)
    chunk = max(1, min(draws, 4_000_000 // k))
    done = 0
    while done < draws:
        n = min(chunk, draws - done)
        x = mean + rng.standard_normal((n, k)) @ root.T
        top = x.max(axis=1, keepdims=True)
        tie = x >= top - 1e-9 * (1.0 + np.abs(top))
        wins += (tie / tie.sum(axis=1, keepdims=True)).sum(axis=0)
        done += n
    members = np.bincount(group, minlength=k)
    return (wins / draws)[group] / members[group]


# ---------------------------------------------------------------- the match columns
def wilson(k: np.ndarray, n: int) -> tuple:
    """The 95% Wilson score interval of ``k`` successes in ``n`` trials."""
    p = k / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
