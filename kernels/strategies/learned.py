"""The ``learned`` strategy: a small network values the pickup and the discard.

At the pickup (draw or take the pile) and the discard the seat to move plays the
action the network values highest among the legal ones that keep the base
policy's hard rules (:func:`kernels.strategies.hard_rules.keeps_base_rules`, the
list the ``rollout`` search chooses from), when it values it more than a margin
above the base policy's choice; the meld phase is the heuristic's with the seat's
parameter slots 0..16 (``expert``'s by default).

What the network reads is the seat's observation tensor
(:func:`kernels.engine.observe.observation_tensor`, R11: what the seat may know)
and nothing else, as the binary features of
:mod:`kernels.strategies.learned_features` (computed from the state when playing,
:func:`~kernels.strategies.learned_features.state_features`; their names are
re-exported here).

The network (:func:`forward`): a sparse first layer (the sum of the weight rows
of the active features, plus a bias, ReLU), an optional dense second hidden layer
(ReLU), and linear outputs, :data:`N_OUT` of them: draw, take the pile, and the
discard of each of the 53 faces (:func:`out_index`).  A network may add a candidate
term (:func:`candidate_values`): each candidate's binary features
(:func:`~kernels.strategies.learned_features.candidate_features`: what the discarded
face or the pile is to the hand, the melds and the other seats, and whether it is the
base policy's choice) weighted by ``q = v + V h``, ``h`` the last hidden layer.  Its weights are one flat
``float64`` array (:data:`HEADER` words, then the layers, :func:`weights_size`)
that the Python side loads from a weights file and keeps alive for the run; the
kernel reaches it by the address in the seat's ``LP_WEIGHTS`` parameter slot, so
no weight is a compile-time constant: a new weights file needs no recompilation
and the on-disk cache never serves stale weights.

Like ``rollout``, the chooser runs as a C callback (:data:`learned_callback`),
compiled with Numba's runtime so that it may allocate its small buffers.
"""
import numpy as np
from numba import carray, cfunc, njit, types
from numba.extending import intrinsic

from kernels.core import layout as L
from kernels.core.cards import N_COUNT
from kernels.core.params import LEARNED_PARAMS
from kernels.engine.actions import A_DISCARD, A_DRAW, A_TAKE, PH_DISCARD, PH_PICKUP
from kernels.strategies.api import CHOOSER_SIG, _as_i64_pointer, legal
from kernels.strategies.choosers import heuristic_chooser, open_lay_off_action
from kernels.strategies.hard_rules import keeps_base_rules
from kernels.table.state import G_LEN, G_OPEN_LAYOFF, G_PHASE, G_SEAT, view_f64, view_i64
from kernels.table.work import W_G, W_PARAMS, W_SEL, views

from kernels.strategies.learned_features import (  # noqa: F401  (the features' names, here too)
    F_BARRED, F_BURRACOS_OPP, F_BURRACOS_OWN, F_HAND1, F_HAND2, F_HAND_SIZES, F_KNOWN,
    F_LAYS_OPP, F_LAYS_OWN, F_MELDS_OPP, F_MELDS_OWN, F_PHASE, F_PILE1, F_PILE2, F_PILE_SIZE,
    F_POZ_LEFT, F_POZ_TAKEN, F_STOCK_SIZE, F_TOP, F_TURN, FEATURE_FIELDS, FEATURES_VERSION,
    MAX_ACTIVE, N_FEATURES, features, features_rows, state_features)
from kernels.strategies.learned_features import (  # noqa: F401
    CANDIDATE_FIELDS, MAX_CANDIDATE_ACTIVE, N_CANDIDATE_FEATURES, READS_FEATURES_VERSIONS,
    candidate_features, candidate_rows, feature_bits)

#: the parameter slots of the weights' address and of the margins at the pickup and at the
#: discard, points (kernels.core.params.LEARNED_PARAMS)
LP_WEIGHTS = LEARNED_PARAMS[0].slot
LP_PICKUP_MARGIN = LEARNED_PARAMS[1].slot
LP_DISCARD_MARGIN = LEARNED_PARAMS[2].slot
#: a margin (points) at which the base policy's choice is kept without evaluating the network
#: (the margins' highest allowed value)
MARGIN_NEVER = LEARNED_PARAMS[1].hi

# ---------------------------------------------------------------- the network's layout
N_OUT = 2 + N_COUNT             # draw, take, discard of face 0..52
HEADER = 8                      # magic, format, features version, F, H1, H2, outputs,
                                # candidate features (0: no candidate term)
MAGIC = 0x1EA2ED                # the first word of a weights array
FORMAT = 3                      # the in-memory layout (weights_size): 3 stores W2 and V
                                # input-major; 2 and 1 (no candidate term) output-major


@njit(cache=True)
def weights_size(n_features, h1, h2, n_out, n_cand):
    """Words of a weights array: the header, ``W1`` (``[F, H1]``), ``b1``, then with a
    second hidden layer ``W2`` (``[H1, H2]``) and ``b2``, then the output layer
    transposed (``[n_out, H]``, ``H`` the last hidden layer's width) and its bias, then
    with a candidate term of ``n_cand`` features ``V`` transposed (``[H, n_cand]``) and
    ``v``.  Row-major: ``W1``, ``W2`` and ``V`` have a row per input unit, so a unit at
    zero (an inactive feature, a hidden unit after its ReLU) skips its row; the output
    layer has a row per output, as only the candidates' outputs are computed."""
    last = h2 if h2 > 0 else h1
    size = HEADER + n_features * h1 + h1 + n_out * last + n_out + n_cand * last + n_cand
    if h2 > 0:
        size += h2 * h1 + h2
    return size


@njit(cache=True, inline="always")
def out_index(a):
    """The network's output valuing the pickup or discard action ``a``: 0 draw, 1 take,
    ``2 + face`` a discard; -1 for any other action."""
    if a == A_DRAW:
        return 0
    if a == A_TAKE:
        return 1
    if A_DISCARD <= a < A_DISCARD + N_COUNT:
        return 2 + a - A_DISCARD
    return -1


# ---------------------------------------------------------------- the forward pass
@njit(cache=True, fastmath=True)
def hidden(w, fidx, nf, h):
    """The last hidden layer of the network ``w`` (a weights array, :func:`weights_size`)
    for the active features ``fidx[:nf]``, into ``h`` (float64[>= H1 + H2], written);
    returns ``(offset of the last layer in h, its width)``.  The layers are read
    through slices of ``w`` (so the compiler sees they do not overlap ``h`` and
    vectorises the loops), a row per input unit: the first layer adds the rows of the
    active features, the second the rows of the first layer's units above zero, each
    scaled by its unit."""
    nfeat = np.int64(w[3])
    h1 = np.int64(w[4])
    h2 = np.int64(w[5])
    at = HEADER + nfeat * h1
    w1 = w[HEADER:at]
    a = h[:h1]
    a[:] = w[at:at + h1]
    for i in range(nf):
        r = w1[fidx[i] * h1:(fidx[i] + 1) * h1]
        for j in range(h1):
            a[j] += r[j]
    if h2 <= 0:
        for j in range(h1):
            if a[j] < 0.0:
                a[j] = 0.0
        return 0, h1
    at += h1
    w2 = w[at:at + h1 * h2]
    b = h[h1:h1 + h2]
    b[:] = w[at + h1 * h2:at + h1 * h2 + h2]
    for j in range(h1):
        x = a[j]
        if x > 0.0:
            r = w2[j * h2:(j + 1) * h2]
            for k in range(h2):
                b[k] += x * r[k]
        else:
            a[j] = 0.0
    for k in range(h2):
        if b[k] < 0.0:
            b[k] = 0.0
    return h1, h2


@njit(cache=True)
def _tail_at(w, width):
    """The offsets of the output layer and of the candidate term's ``V`` in ``w``."""
    nfeat = np.int64(w[3])
    h1 = np.int64(w[4])
    h2 = np.int64(w[5])
    nout = np.int64(w[6])
    w3 = HEADER + nfeat * h1 + h1
    if h2 > 0:
        w3 += h1 * h2 + h2
    return w3, w3 + width * nout + nout


@njit(cache=True, fastmath=True)
def output(w, h, at, width, o):
    """Output ``o`` of the network ``w`` from its last hidden layer ``h[at:at + width]``."""
    nout = np.int64(w[6])
    w3, _ = _tail_at(w, width)
    r = w[w3 + o * width:w3 + (o + 1) * width]
    x = h[at:at + width]
    s = 0.0
    for j in range(width):
        s += r[j] * x[j]
    return s + w[w3 + nout * width + o]


@njit(cache=True)
def candidate_weights(w, h, at, width, q):
    """``q = v + V h`` (float64[K], written) of the network ``w`` with a candidate term of
    ``K`` features (its header's last word) from its last hidden layer ``h[at:at +
    width]``; returns ``K`` (0: no candidate term, ``q`` untouched)."""
    k = np.int64(w[7])
    if k <= 0:
        return 0
    _, vat = _tail_at(w, width)
    qk = q[:k]
    qk[:] = w[vat + width * k:vat + width * k + k]
    x = h[at:at + width]
    for j in range(width):
        if x[j] > 0.0:
            r = w[vat + j * k:vat + (j + 1) * k]
            for c in range(k):
                qk[c] += x[j] * r[c]
    return k


@njit(cache=True)
def candidate_value(w, h, at, width, q, k, bits, o, is_base, buf):
    """The network's value of the candidate with output ``o`` (:func:`out_index`): its
    output plus, with a candidate term (``k > 0``, ``q`` from :func:`candidate_weights`),
    the sum of ``q`` over the candidate's active features (:func:`candidate_features` of
    the position's ``bits``; ``buf`` int64[>= MAX_CANDIDATE_ACTIVE] is overwritten)."""
    v = output(w, h, at, width, o)
    if k > 0:
        for i in range(candidate_features(bits, o, is_base, buf)):
            v += q[buf[i]]
    return v


@njit(cache=True)
def candidate_values(w, fidx, nf, outs, base, res):
    """The network ``w``'s values of the candidates with outputs ``outs`` (int64[n]) in
    the position with active features ``fidx[:nf]``, candidate ``base`` (an index into
    ``outs``, -1 for none) being the base policy's choice, into ``res`` (float64[n],
    written): the reference the tests compare with numpy's."""
    h = np.empty(np.int64(w[4]) + max(np.int64(w[5]), 0), np.float64)
    at, width = hidden(w, fidx, nf, h)
    q = np.empty(max(np.int64(w[7]), 1), np.float64)
    k = candidate_weights(w, h, at, width, q)
    bits = np.zeros(N_FEATURES, np.uint8)
    feature_bits(fidx, nf, bits)
    buf = np.empty(MAX_CANDIDATE_ACTIVE, np.int64)
    for i in range(outs.shape[0]):
        res[i] = candidate_value(w, h, at, width, q, k, bits, outs[i], i == base, buf)


@njit(cache=True)
def forward(w, fidx, nf, out):
    """Every output of the network ``w`` for the active features ``fidx[:nf]`` into
    ``out`` (float64[>= N_OUT], written): the forward pass that the tests compare with
    numpy's."""
    h = np.empty(np.int64(w[4]) + max(np.int64(w[5]), 0), np.float64)
    at, width = hidden(w, fidx, nf, h)
    for o in range(np.int64(w[6])):
        out[o] = output(w, h, at, width, o)


@intrinsic
def _as_f64_pointer(typingctx, addr):
    if not isinstance(addr, types.Integer):
        return None
    sig = types.CPointer(types.float64)(addr)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))
    return sig, codegen


@njit(cache=True)
def weights_at(addr):
    """The weights array at address ``addr`` (its length read from its header)."""
    head = carray(_as_f64_pointer(addr), HEADER)
    return carray(_as_f64_pointer(addr), weights_size(np.int64(head[3]), np.int64(head[4]),
                                                      np.int64(head[5]), np.int64(head[6]),
                                                      np.int64(head[7])))


# ---------------------------------------------------------------- the chooser
@njit(cache=True)
def learned_choose(work):
    """The ``learned`` strategy's action id for the seat to move in ``work``.

    At the pickup and the discard: the candidate (a legal action keeping the base
    policy's hard rules, :func:`kernels.strategies.hard_rules.keeps_base_rules`) with
    the highest value (:func:`candidate_value`) of the network whose address is in the
    seat's ``LP_WEIGHTS`` slot (ties: the first in the legal list); a decision with one
    candidate plays it.  With a margin ``M > 0`` (points; the ``LP_PICKUP_MARGIN`` slot
    at the pickup, ``LP_DISCARD_MARGIN`` at the discard) the base policy's choice (the
    heuristic's with the seat's parameters) is kept unless the best candidate's output
    exceeds the base choice's by more than ``M``; a margin of :data:`MARGIN_NEVER` or
    more keeps it without evaluating the network.  Elsewhere, and without weights
    (address 0), the heuristic with the seat's parameters.  Reads the seat's observation tensor only (R11); the state is
    not mutated, the work arrays are; draws no random number.
    """
    g = view_i64(work, W_G, G_LEN)
    if g[G_OPEN_LAYOFF] != 0:
        return open_lay_off_action(work)
    seat = g[G_SEAT]
    ph = g[G_PHASE]
    p = view_f64(work, W_PARAMS, (4, L.N_PARAMS))[seat]
    addr = np.int64(p[LP_WEIGHTS])
    if (ph != PH_PICKUP and ph != PH_DISCARD) or addr == 0:
        return heuristic_chooser(work)
    margin = p[LP_PICKUP_MARGIN] if ph == PH_PICKUP else p[LP_DISCARD_MARGIN]
    if margin >= MARGIN_NEVER:
        return heuristic_chooser(work)
    ids, n = legal(work)
    if n == 0:
        return -1
    vw = views(work)
    st, rv = vw.state, vw.rules
    sel = view_i64(work, W_SEL, N_COUNT)
    buf = np.empty(N_OUT + MAX_ACTIVE + 2 * N_COUNT + 10 + MAX_CANDIDATE_ACTIVE, np.int64)
    cand = buf[:N_OUT]
    m = 0
    for i in range(n):
        a = ids[i]
        if out_index(a) >= 0 and keeps_base_rules(st, rv, seat, p, a, sel):
            cand[m] = a
            m += 1
    if m <= 1:
        return cand[0] if m == 1 else ids[0]
    w = weights_at(addr)
    kc = np.int64(w[7])
    base = heuristic_chooser(work) if margin > 0.0 or kc > 0 else np.int64(-1)
    fidx = buf[N_OUT:N_OUT + MAX_ACTIVE + 2 * N_COUNT + 10]
    cbuf = buf[N_OUT + MAX_ACTIVE + 2 * N_COUNT + 10:]
    nf = state_features(work, seat, rv[L.RV_NUM_PLAYERS], fidx, fidx[MAX_ACTIVE:])
    h = np.empty(np.int64(w[4]) + max(np.int64(w[5]), 0) + max(kc, 1), np.float64)
    at, width = hidden(w, fidx, nf, h)
    q = h[at + width:]
    bits = np.empty(N_FEATURES if kc > 0 else 1, np.uint8)
    if kc > 0:
        candidate_weights(w, h, at, width, q)
        feature_bits(fidx, nf, bits)
    best = -1
    best_v = 0.0
    base_v = np.nan
    for i in range(m):
        v = candidate_value(w, h, at, width, q, kc, bits, out_index(cand[i]), cand[i] == base,
                            cbuf)
        if cand[i] == base:
            base_v = v
        if best < 0 or v > best_v:
            best = cand[i]
            best_v = v
    if margin > 0.0 and base >= 0 and best != base and out_index(base) >= 0:
        if np.isnan(base_v):
            base_v = candidate_value(w, h, at, width, q, kc, bits, out_index(base), True, cbuf)
        if best_v - base_v <= margin:
            return base
    return best


@cfunc(CHOOSER_SIG, cache=True)
def learned_callback(work_addr, words):
    """:func:`learned_choose` as a C function of the chooser interface
    (:data:`kernels.strategies.api.CHOOSER_SIG`): its ``.address`` is the ``learned``
    strategy's policy kind in this process."""
    return learned_choose(carray(_as_i64_pointer(work_addr), words))
