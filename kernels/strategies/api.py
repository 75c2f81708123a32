"""The interface of a strategy written in Numba: a *chooser*.

A chooser is an ``@njit`` function ``choose(work) -> int64``: it gets the
hand's work buffer (``int64[:]``, :mod:`kernels.table.work`) at a decision of the
seat to move and returns an action id (:mod:`kernels.engine.actions`).  The built-in
``heuristic`` and ``random`` are written against this interface
(:func:`kernels.strategies.policies.heuristic_chooser`, :func:`kernels.strategies.policies.random_chooser`),
and a registered chooser (``sim.strategies.register``) runs inside the
parallel batch kernel through a function pointer: :func:`chooser_cfunc`
compiles it once as a C callback, and :func:`call_chooser` calls it.

Inside a chooser, read the hand with :func:`kernels.table.work.views` (the state
``st``, rules vector ``rv``, the seats' parameter rows ``params``, the hand's
generator ``rng`` ...), the seat to move is ``st.g[G_SEAT]``, the phase
``st.g[G_PHASE]``, and :func:`legal` lists the legal actions.  Read only what
the seat may know (R11): its hand ``st.hand[seat]``/``st.hcnt[seat]``, the
melds, the discard pile, hand sizes ``st.hn``, the stock size, the counters,
and ``st.known``; never other hands, the stock order or the pozzetti.  Draw
random numbers only from ``rng`` (:func:`kernels.core.rng.bounded`), so that runs
stay reproducible.  The work arrays in the buffer (``sel``, ``scratch``,
``need``, ``vals``, ``cand``) are free to use.
"""
from llvmlite import ir
from numba import carray, cfunc, njit, types
from numba.extending import intrinsic

from kernels.engine.actions import N_ACTIONS, legal_actions
from kernels.table.state import view_i64
from kernels.table.work import W_LEGAL

# (address of the work buffer's first word, its length in words) -> action id
CHOOSER_SIG = types.int64(types.int64, types.int64)


@intrinsic
def _as_i64_pointer(typingctx, addr):
    if not isinstance(addr, types.Integer):
        return None
    sig = types.CPointer(types.int64)(addr)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))
    return sig, codegen


@intrinsic
def call_chooser(typingctx, fn_addr, work_addr, words):
    """Call the chooser compiled at address ``fn_addr`` (int64) on the buffer at
    ``work_addr`` of ``words`` words; returns its action id (int64)."""
    if not all(isinstance(a, types.Integer) for a in (fn_addr, work_addr, words)):
        return None
    sig = types.int64(types.int64, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(i64, [i64, i64])
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        return builder.call(fn, [args[1], args[2]])
    return sig, codegen


def chooser_cfunc(choose):
    """Compile the chooser ``choose`` (an ``@njit`` function of the work buffer)
    as a C callback of :data:`CHOOSER_SIG`; its ``.address`` goes into the
    kernels' policy-kind table.  The callback must stay alive while it is used
    (``sim.strategies.register`` keeps it)."""
    @cfunc(CHOOSER_SIG, nopython=True)
    def callback(work_addr, words):
        return choose(carray(_as_i64_pointer(work_addr), words))
    return callback


@njit(cache=True)
def legal(work):
    """The legal actions of the seat to move, in the buffer's own list:
    ``(ids, n)`` with ``ids`` an int64 view of which the first ``n`` are valid
    (overwritten by the next call)."""
    out = view_i64(work, W_LEGAL, N_ACTIONS)
    n = legal_actions(work, out)
    return out, n
