# The custom return types of the jumperless module (spec 6.1), the argument conversions the C
# module does, and the constants built on them. Classes are bound to private names at the end so
# that `from jumperless import *` brings only what the firmware exports (the constants, `node()`).
import math as _math


# ---- argument handling, as the C module does it ----------------------------------------------

def _sig(a, k, lo, hi):
    # mp_arg_check_num: the messages of a native function (not those of a Python def).
    if k:
        raise TypeError("function doesn't take keyword arguments")
    n = len(a)
    if lo == hi:
        if n != lo:
            raise TypeError('function takes %d positional arguments but %d were given' % (lo, n))
    elif n < lo:
        raise TypeError('function missing %d required positional arguments' % (lo - n))
    elif n > hi:
        raise TypeError('function expected at most %d arguments, got %d' % (hi, n))


def _int(x):
    # mp_obj_get_int: int, bool or an object with __int__; floats and strings are TypeErrors.
    return range(x).stop


def _flt(x):
    # mp_obj_get_float: int, bool, float or an object with __float__; strings are TypeErrors.
    return x if isinstance(x, float) else _math.copysign(x, x)


def _jf(f):
    # A float as JSON, which has no inf/nan: those travel as strings (asNum in args.ts).
    if f != f:
        return 'nan'
    if f == _math.inf or f == -_math.inf:
        return 'inf' if f > 0 else '-inf'
    return f


def _pf(x):
    # A float coming back from the firmware: JSON turns 3.0 into 3, and inf/nan travel as strings.
    return float(x)


def _node(x):
    # get_node_value: a Node, an int (not validated), or a name; anything else is a TypeError.
    t = type(x)
    if t is _Node:
        return x._v
    if t is not bool and isinstance(x, int):
        return _int(x)
    if isinstance(x, str):
        v = _c('_resolve_node', x)
        if v is None:
            raise ValueError('Unknown node name')
        return v
    raise TypeError('Expected node, int, or string')


def _unsupported(op, a, b):
    # MicroPython hands a bool operand on as an int, so the message names it 'int'.
    name = 'int' if type(b) is bool else type(b).__name__
    raise TypeError("unsupported types for %s: '%s', '%s'" % (op, type(a).__name__, name))


# ---- GPIOState: HIGH / LOW / FLOATING --------------------------------------------------------

class GPIOState:
    __slots__ = ('_v',)
    __hash__ = _no_hash

    def __init__(self, *a, **k):
        _sig(a, k, 1, 1)
        v = a[0]
        if type(v) is not bool and isinstance(v, int):
            v = _int(v)
            self._v = v if v in (0, 1, 2) else (1 if v else 0)
        elif isinstance(v, str):
            if v in ('HIGH', 'high', '1'):
                self._v = 1
            elif v in ('LOW', 'low', '0'):
                self._v = 0
            elif v in ('FLOATING', 'floating', 'FLOAT', 'float', '2'):
                self._v = 2
            else:
                raise ValueError("GPIO state must be 'HIGH', 'LOW', or 'FLOATING'")
        else:
            self._v = 1 if v else 0

    def __str__(self):
        return ('LOW', 'HIGH', 'FLOATING')[self._v] if 0 <= self._v <= 2 else 'UNKNOWN'

    __repr__ = __str__

    def __bool__(self):
        return self._v == 1

    def __int__(self):
        return self._v

    def __float__(self):
        return float(self._v)

    def __eq__(self, o):
        return self._v == o._v if _same(self, o) else NotImplemented

    def __ne__(self, o):
        return self._v != o._v if _same(self, o) else NotImplemented


def _state(v):
    return (_LOW, _HIGH, _FLOATING)[v] if v in (0, 1, 2) else _LOW


# ---- GPIODirection: INPUT / OUTPUT (int() uses the firmware convention OUTPUT=0, INPUT=1) ------

class GPIODirection(_Flag):
    _names = ('INPUT', 'OUTPUT')
    _ints = (1, 0)


# ---- GPIOPull: PULLUP / PULLDOWN / NO_PULL / BUS_KEEPER --------------------------------------

class GPIOPull:
    __slots__ = ('_v',)
    __hash__ = _no_hash

    def __init__(self, *a, **k):
        _sig(a, k, 1, 1)
        self._v = _int(a[0])

    def __str__(self):
        return {1: 'PULLUP', -1: 'PULLDOWN', 2: 'BUS_KEEPER'}.get(self._v, 'NO_PULL')

    __repr__ = __str__

    def __bool__(self):
        return self._v == 1

    def __int__(self):
        return self._v

    def __float__(self):
        return float(self._v)

    def __eq__(self, o):
        return self._v == o._v if _same(self, o) else NotImplemented

    def __ne__(self, o):
        return self._v != o._v if _same(self, o) else NotImplemented


# ---- ConnectionState: CONNECTED / DISCONNECTED -----------------------------------------------

class ConnectionState(_Flag):
    _names = ('DISCONNECTED', 'CONNECTED')
    _ints = (0, 1)


# ---- node: prints its first alias (NANO_D13, RP_GPIO_1), orders and counts like an int ----------

class node(_Ordered):
    __slots__ = ('_v',)

    def __init__(self, *a, **k):
        _sig(a, k, 1, 1)
        v = a[0]
        if isinstance(v, str):
            self._v = _node(v)
        elif type(v) is _Node:
            self._v = v._v
        elif type(v) is not bool and isinstance(v, int):
            self._v = _int(v)
        else:
            raise TypeError('Node must be created from string, int, or another node')

    def __str__(self):
        name = _c('_node_name', self._v)
        return name if name else '%d' % self._v

    __repr__ = __str__

    def __bool__(self):
        return self._v != 0

    def __int__(self):
        return self._v

    def __float__(self):
        return float(self._v)

    def _other(self, o):
        if type(o) is _Node:
            return o._v
        if type(o) is not bool and isinstance(o, int):
            return o
        return None



_Node = node
_GPIOState = GPIOState
_GPIODirection = GPIODirection
_GPIOPull = GPIOPull
_ConnectionState = ConnectionState
del node, GPIOState, GPIODirection, GPIOPull, ConnectionState


def node(*a, **k):
    _sig(a, k, 1, 1)
    x = a[0]
    if isinstance(x, str):
        return _Node(x)
    if type(x) is not bool and isinstance(x, int):
        return _Node(x)
    if type(x) is _Node:
        return x
    raise TypeError('Node must be created from string, int, or another node')


def _N(v):
    n = _Node(0)
    n._v = v
    return n


# ---- constants (the module table of spec 6.2; probe pads and buttons live with the probe) ------

_HIGH = _GPIOState(1)
_LOW = _GPIOState(0)
_FLOATING = _GPIOState(2)
HIGH = _HIGH
LOW = _LOW
FLOATING = _FLOATING
INPUT = _GPIODirection(False)
OUTPUT = _GPIODirection(True)

GND = _N(100)
TOP_RAIL = T_RAIL = _N(101)
BOTTOM_RAIL = BOT_RAIL = B_RAIL = _N(102)
DAC0 = DAC_0 = _N(106)
DAC1 = DAC_1 = _N(107)
ISENSE_PLUS = ISENSE_P = I_P = CURRENT_SENSE_P = CURRENT_SENSE_PLUS = _N(108)
ISENSE_MINUS = ISENSE_N = I_N = CURRENT_SENSE_N = CURRENT_SENSE_MINUS = _N(109)
BUFFER_IN = BUF_IN = _N(139)
BUFFER_OUT = BUF_OUT = _N(140)
ADC0 = _N(110)
ADC1 = _N(111)
ADC2 = _N(112)
ADC3 = _N(113)
ADC4 = _N(114)
ADC7 = _N(115)
UART_TX = TX = _N(116)
UART_RX = RX = _N(117)


def _constants(g):
    for i in range(14):
        g['D%d' % i] = g['NANO_D%d' % i] = _N(70 + i)
    for i in range(8):
        g['A%d' % i] = g['NANO_A%d' % i] = _N(86 + i)
    for i in range(1, 9):
        g['GPIO_%d' % i] = g['GP%d' % i] = g['GPIO_%d' % (19 + i)] = _N(130 + i)


_constants(globals())
del _constants

SINE = 0
TRIANGLE = 1
SAWTOOTH = RAMP = 2
SQUARE = 3
ARBITRARY = 4
