# The bridge between the `jumperless` module and the simulated firmware (src/sim/firmware).
# Every firmware call goes through _c(); names starting with "_" stay out of `from jumperless import *`.
import json as _json
import _fw

# Set-up the VM runs after importing this module, at boot and after every soft reset (vm.ts): each
# group may append a function that puts its parts in place (builtins, sys.modules...).
_BOOT = []


def _run_boot():
    for f in _BOOT:
        f()

_ERRORS = {
    'ValueError': ValueError,
    'TypeError': TypeError,
    'OSError': OSError,
    'NotImplementedError': NotImplementedError,
    'KeyboardInterrupt': KeyboardInterrupt,
    'RuntimeError': RuntimeError,
    'IndexError': IndexError,
    'SystemExit': SystemExit,
}


def _c(name, *args):
    reply = _json.loads(_fw.call(name, _json.dumps(args)))
    if reply[0] == 0:
        return reply[1]
    kind = _ERRORS.get(reply[1], RuntimeError)
    if reply[1] == 'OSError' and reply[3] is not None:
        raise OSError(reply[3])
    if reply[2]:
        raise kind(reply[2])
    raise kind


def _cdiv(a, b, op):
    if b == 0:
        raise ZeroDivisionError('division by zero' if op == '//' else 'modulo by zero')
    q = abs(a) // abs(b)
    q = q if (a < 0) == (b < 0) else -q
    return q if op == '//' else a - q * b


def _no_hash(self):
    # The C types have a unary_op slot that returns NULL for HASH, so MicroPython refuses to hash them
    # instead of hashing by identity (py/runtime.c:343-375): no dict keys, no set members.
    raise TypeError("unsupported type for __hash__: '%s'" % type(self).__name__)


def _same(a, b):
    # Equality across types never reaches these types' own code (MP_TYPE_FLAG_NONE, py/obj.c:268-300):
    # only the same type compares by value; anything else falls back to identity (False).
    return type(a) is type(b)


class _Ordered:
    # Values with an integer identity (node, ProbePad): equal only to their own kind; they order and
    # count with ints and with their own kind; each subclass says which operands it accepts in _other()
    # (None: not).
    __hash__ = _no_hash

    def __eq__(self, o):
        return self._v == o._v if _same(self, o) else NotImplemented

    def __ne__(self, o):
        return self._v != o._v if _same(self, o) else NotImplemented

    def __lt__(self, o):
        v = self._other(o)
        return _unsupported('__lt__', self, o) if v is None else self._v < v

    def __le__(self, o):
        v = self._other(o)
        return _unsupported('__le__', self, o) if v is None else self._v <= v

    def __gt__(self, o):
        v = self._other(o)
        return _unsupported('__gt__', self, o) if v is None else self._v > v

    def __ge__(self, o):
        v = self._other(o)
        return _unsupported('__ge__', self, o) if v is None else self._v >= v

    def __add__(self, o):
        v = self._other(o)
        return _unsupported('__add__', self, o) if v is None else self._v + v

    def __sub__(self, o):
        v = self._other(o)
        return _unsupported('__sub__', self, o) if v is None else self._v - v

    def __mul__(self, o):
        v = self._other(o)
        return _unsupported('__mul__', self, o) if v is None else self._v * v

    def __floordiv__(self, o):
        v = self._other(o)
        return _unsupported('__floordiv__', self, o) if v is None else _cdiv(self._v, v, '//')

    def __mod__(self, o):
        v = self._other(o)
        return _unsupported('__mod__', self, o) if v is None else _cdiv(self._v, v, '%')


class _Flag:
    # A two-valued firmware type (GPIODirection, ConnectionState): prints _names[v], int() is
    # _ints[v]; the constructor takes the truth of its argument; equal only to its own kind.
    __hash__ = _no_hash

    def __init__(self, *a, **k):
        _sig(a, k, 1, 1)
        self._v = bool(a[0])

    def __str__(self):
        return self._names[self._v]

    def __repr__(self):
        return self._names[self._v]

    def __bool__(self):
        return self._v

    def __int__(self):
        return self._ints[self._v]

    def __float__(self):
        return float(self._ints[self._v])

    def __eq__(self, o):
        return self._v == o._v if _same(self, o) else NotImplemented

    def __ne__(self, o):
        return self._v != o._v if _same(self, o) else NotImplemented
