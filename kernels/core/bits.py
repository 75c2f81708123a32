"""Bit counts of int64 masks for the kernels: population count, lowest and
highest set bit, as single machine instructions (LLVM's ``ctpop``, ``cttz``
and ``ctlz`` intrinsics) in jitted code and as plain Python under
``NUMBA_DISABLE_JIT=1``.

The meld kernels keep a suit's held slots as a 14-bit mask (bit ``sl - 1``
for slot ``sl``, RULES.md R4); a reading's lowest and highest slot and its
number of naturals are then :func:`low_bit`, :func:`high_bit` and
:func:`popcount` of that mask.
"""
from numba import config, njit, types
from numba.extending import intrinsic

if config.DISABLE_JIT:          # pure Python: the same answers
    def popcount(x):
        """Number of set bits of the int64 ``x`` (``x`` >= 0)."""
        return int(x).bit_count()

    def low_bit(x):
        """Index of the lowest set bit of the int64 ``x`` (``x`` > 0)."""
        x = int(x)
        return (x & -x).bit_length() - 1

    def high_bit(x):
        """Index of the highest set bit of the int64 ``x`` (``x`` > 0)."""
        return int(x).bit_length() - 1
else:
    from llvmlite import ir

    def _unary(op):
        @intrinsic
        def bit_op(typingctx, x):
            if not isinstance(x, types.Integer):
                return None
            sig = types.int64(x)

            def codegen(context, builder, signature, args):
                v = context.cast(builder, args[0], signature.args[0], types.int64)
                return op(builder, v)
            return sig, codegen
        return bit_op

    _TRUE = ir.Constant(ir.IntType(1), 1)      # "zero input is undefined": x > 0 here
    _ctpop = _unary(lambda b, v: b.ctpop(v))
    _cttz = _unary(lambda b, v: b.cttz(v, _TRUE))
    _ctlz = _unary(lambda b, v: b.sub(ir.Constant(v.type, 63), b.ctlz(v, _TRUE)))

    @njit(cache=True, inline="always", _nrt=False)
    def popcount(x):
        """Number of set bits of the int64 ``x`` (``x`` >= 0)."""
        return _ctpop(x)

    @njit(cache=True, inline="always", _nrt=False)
    def low_bit(x):
        """Index of the lowest set bit of the int64 ``x`` (``x`` > 0)."""
        return _cttz(x)

    @njit(cache=True, inline="always", _nrt=False)
    def high_bit(x):
        """Index of the highest set bit of the int64 ``x`` (``x`` > 0)."""
        return _ctlz(x)
