# Probe, probe buttons, probe switch and clickwheel (spec 6.10), with the ProbePad and ProbeButton
# types of spec 6.1. Blocking reads wait inside the firmware, where Ctrl-C ends them.


class ProbePad(_Ordered):
    # Prints PAD_1..PAD_60 or the pad's name (NANO_D13, TOP_RAIL, LOGO_PAD_TOP, NO_PAD); true unless
    # NO_PAD; orders and counts like an int; ProbePad + str concatenates the name. As in the firmware,
    # only the pad on the left works: `1 + pad`, `"x" + pad` and `1 < pad` raise TypeError. Equal only
    # to another ProbePad (`pad == 12` is False: MP_TYPE_FLAG_NONE, py/obj.c:263-300), not hashable.

    def __init__(self, v, _name=None):
        self._v = v if type(v) is int else _int(v)
        self._n = _name if _name is not None else _c('_pad_names', [self._v])[0]

    def __str__(self):
        return self._n

    __repr__ = __str__

    def __bool__(self):
        return self._v != -1

    def __int__(self):
        return self._v

    def __float__(self):
        return float(self._v)

    def _other(self, o):
        if type(o) is _ProbePad:
            return o._v
        if isinstance(o, int):
            return o
        return None

    def __add__(self, o):
        if isinstance(o, str):
            return self._n + o
        return _Ordered.__add__(self, o)



class ProbeButton:
    # CONNECT / REMOVE / NONE; true unless NONE; int() 1 / 2 / 0. Equal only to another ProbeButton
    # (`b == 1` is False: the C type's int case is never reached, py/runtime.c:398-400), not hashable.
    __hash__ = _no_hash

    def __init__(self, v):
        self._v = v if type(v) is int else _int(v)

    def __str__(self):
        return 'CONNECT' if self._v == 1 else 'REMOVE' if self._v == 2 else 'NONE'

    __repr__ = __str__

    def __bool__(self):
        return self._v != 0

    def __int__(self):
        return self._v

    def __float__(self):
        return float(self._v)

    def __eq__(self, o):
        return self._v == o._v if _same(self, o) else NotImplemented

    def __ne__(self, o):
        return self._v != o._v if _same(self, o) else NotImplemented


# The types are not in the module table: keep them out of `from jumperless import *`.
_ProbePad = ProbePad
_ProbeButton = ProbeButton
del ProbePad, ProbeButton


def _probe_pad(reply):
    return _ProbePad(reply[0], reply[1])


def _probe_button(v):
    return (BUTTON_NONE, BUTTON_CONNECT, BUTTON_REMOVE)[v] if v in (0, 1, 2) else _ProbeButton(v)


# ---- probe reads -------------------------------------------------------------------------------

def probe_read(*a, **k):
    _sig(a, k, 0, 1)
    return _probe_pad(_c('probe_read', bool(a[0]) if a else True))


read_probe = probe_read


def probe_read_blocking(*a, **k):
    _sig(a, k, 0, 0)
    return _probe_pad(_c('probe_read', True))


probe_wait = wait_probe = probe_touch = wait_touch = probe_read_blocking


def probe_read_nonblocking(*a, **k):
    _sig(a, k, 0, 0)
    return _probe_pad(_c('probe_read', False))


def probe_tap(*a, **k):
    _sig(a, k, 1, 1)
    _c('probe_tap', _node(a[0]))


# ---- probe buttons -----------------------------------------------------------------------------

def probe_button(*a, **k):
    _sig(a, k, 0, 2)
    blocking = bool(a[0]) if a else True
    consume = bool(a[1]) if len(a) > 1 else False
    return _probe_button(_c('probe_button', blocking, consume))


get_button = button_read = read_button = probe_button


def probe_button_blocking(*a, **k):
    _sig(a, k, 0, 1)
    return _probe_button(_c('probe_button', True, bool(a[0]) if a else False))


def probe_button_nonblocking(*a, **k):
    _sig(a, k, 0, 1)
    return _probe_button(_c('probe_button', False, bool(a[0]) if a else False))


def check_button(*a, **k):
    _sig(a, k, 0, 0)
    return _probe_button(_c('probe_button', False, False))


button_check = check_button


# ---- probe switch ------------------------------------------------------------------------------

def get_switch_position(*a, **k):
    _sig(a, k, 0, 0)
    return _c('get_switch_position')


def set_switch_position(*a, **k):
    _sig(a, k, 1, 1)
    _c('set_switch_position', _int(a[0]))


def check_switch_position(*a, **k):
    _sig(a, k, 0, 0)
    return _c('check_switch_position')


def probe_autoconnect(*a, **k):
    _sig(a, k, 0, 1)
    return _c('probe_autoconnect', bool(a[0]) if a else None)


# ---- clickwheel --------------------------------------------------------------------------------

def clickwheel_get_position(*a, **k):
    _sig(a, k, 0, 0)
    return _c('clickwheel_get_position')


def clickwheel_reset_position(*a, **k):
    _sig(a, k, 0, 0)
    _c('clickwheel_reset_position')


def clickwheel_get_direction(*a, **k):
    _sig(a, k, 0, 1)
    return _c('clickwheel_get_direction', bool(a[0]) if a else True)


def clickwheel_get_button(*a, **k):
    _sig(a, k, 0, 0)
    return _c('clickwheel_get_button')


def clickwheel_is_initialized(*a, **k):
    _sig(a, k, 0, 0)
    return _c('clickwheel_is_initialized')


def clickwheel_up(*a, **k):
    # The count is converted, then ignored (JumperlessMicroPythonAPI.cpp:2161-2165).
    _sig(a, k, 0, 1)
    if a:
        _int(a[0])
    _c('clickwheel_up')


def clickwheel_down(*a, **k):
    _sig(a, k, 0, 1)
    if a:
        _int(a[0])
    _c('clickwheel_down')


def clickwheel_press(*a, **k):
    _sig(a, k, 0, 0)
    _c('clickwheel_press')


# ---- constants ---------------------------------------------------------------------------------

BUTTON_NONE = _ProbeButton(0)
BUTTON_CONNECT = CONNECT_BUTTON = _ProbeButton(1)
BUTTON_REMOVE = REMOVE_BUTTON = _ProbeButton(2)

SWITCH_MEASURE = 0
SWITCH_SELECT = 1
SWITCH_UNKNOWN = -1

CLICKWHEEL_NONE = 0
CLICKWHEEL_UP = 1
CLICKWHEEL_DOWN = 2
CLICKWHEEL_IDLE = 0
CLICKWHEEL_PRESSED = 1
CLICKWHEEL_HELD = 2
CLICKWHEEL_RELEASED = 3
CLICKWHEEL_DOUBLECLICKED = 4


def _pad_constants(g):
    # The module's ProbePad constants; one firmware call names them all.
    table = [
        ('NO_PAD', -1), ('LOGO_PAD_TOP', 142), ('LOGO_PAD_BOTTOM', 143), ('GPIO_PAD', 144),
        ('DAC_PAD', 145), ('ADC_PAD', 146), ('BUILDING_PAD_TOP', 147), ('BUILDING_PAD_BOTTOM', 148),
        ('NANO_VIN', 69), ('VIN_PAD', 69), ('NANO_RESET_0', 94), ('RESET_0_PAD', 94),
        ('NANO_RESET_1', 95), ('RESET_1_PAD', 95), ('NANO_GND_1', 96), ('GND_1_PAD', 96),
        ('NANO_GND_0', 97), ('GND_0_PAD', 97), ('NANO_3V3', 98), ('3V3_PAD', 98),
        ('NANO_5V', 99), ('5V_PAD', 99), ('RESET_PAD', 84), ('AREF_PAD', 85),
        ('TOP_RAIL_PAD', 101), ('BOTTOM_RAIL_PAD', 102), ('BOT_RAIL_PAD', 102),
        ('TOP_RAIL_GND', 104), ('TOP_GND_PAD', 104), ('BOTTOM_RAIL_GND', 126), ('BOT_RAIL_GND', 126),
        ('BOTTOM_GND_PAD', 126), ('BOT_GND_PAD', 126),
    ]
    table += [('D%d_PAD' % i, 70 + i) for i in range(14)]
    table += [('A%d_PAD' % i, 86 + i) for i in range(8)]
    names = _c('_pad_names', [v for _, v in table])
    for (name, v), printed in zip(table, names):
        g[name] = _ProbePad(v, printed)


_pad_constants(globals())
del _pad_constants
