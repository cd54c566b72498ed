# Miscellaneous calls (spec 6.14), the Jumperless help() that shadows the built-in one (6.9), and
# the helpers the firmware sets up for every VM: check_interrupt() and walk() (3.1).


def arduino_reset(*a, **k):
    _sig(a, k, 0, 0)
    _c('arduino_reset')


def run_app(*a, **k):
    _sig(a, k, 1, 1)
    _c('run_app', _str_arg(a[0]))


def pause_core2(*a, **k):
    _sig(a, k, 1, 1)
    x = a[0]
    if type(x) is bool:
        on = x
    elif isinstance(x, int):
        on = x != 0
    elif isinstance(x, str):
        on = x in ('true', '1', 'on', 'yes')
    else:
        raise TypeError('pause_core2() argument must be bool, int, or string')
    _c('pause_core2', on)


def send_raw(*a, **k):
    _sig(a, k, 3, 4)
    x, y = _int(a[1]), _int(a[2])
    setting = _int(a[3]) if len(a) > 3 else 1
    chip = a[0]
    if not (isinstance(chip, int) or isinstance(chip, str)):
        raise ValueError("Chip must be integer (0-11) or string ('A'-'L')")
    _c('send_raw', chip, x, y, setting)


def change_terminal_color(*a, **k):
    _sig(a, k, 0, 2)
    print(_c('change_terminal_color', _int(a[0]) if a else -1), end='')


def cycle_term_color(*a, **k):
    _sig(a, k, 0, 3)
    reset = bool(a[0]) if a else False
    step = _jf(_flt(a[1])) if len(a) > 1 else 100.0
    print(_c('cycle_term_color', reset, step), end='')


def force_service(*a, **k):
    _sig(a, k, 1, 1)
    return _c('force_service', _str_arg(a[0]))


def force_service_by_index(*a, **k):
    _sig(a, k, 1, 1)
    return _c('force_service_by_index', _int(a[0]))


def get_service_index(*a, **k):
    _sig(a, k, 1, 1)
    return _c('get_service_index', _str_arg(a[0]))


FAKE_GPIO_INPUT = 0
FAKE_GPIO_OUTPUT = 1
_SOURCE_NODES = (100, 101, 102, 106, 107)


class FakeGpioPin:
    # A machine.Pin-like pin on any routable node. Inputs compare the node's voltage with two
    # thresholds; outputs are disabled in the documented firmware, so writes only set the level.

    def __init__(self, *a, **k):
        _sig(a, k, 1, 6)
        self._n = _int(a[0])
        mode = _int(a[1]) if len(a) > 1 else FAKE_GPIO_OUTPUT
        hi = _flt(a[4]) if len(a) > 4 else 2.0
        lo = _flt(a[5]) if len(a) > 5 else 0.8
        if mode == FAKE_GPIO_INPUT:
            if len(a) > 2:
                hi = _flt(a[2])
            if len(a) > 3:
                lo = _flt(a[3])
            if not _c('fake_gpio_config', self._n, 0, _jf(hi), _jf(lo)):
                raise ValueError('Failed to configure fake GPIO INPUT pin')
            return
        # Outputs take either two source nodes (TOP_RAIL, GND, DAC0...) or two voltages.
        if len(a) > 2 and _int(a[2]) in _SOURCE_NODES:
            if len(a) > 3 and _int(a[3]) not in _SOURCE_NODES:
                raise ValueError('Invalid low_node - must be TOP_RAIL/BOTTOM_RAIL/DAC0/DAC1/GND')
        elif len(a) > 3:
            _flt(a[3])
        if not _c('fake_gpio_config', self._n, 1, _jf(hi), _jf(lo)):
            raise ValueError('Failed to configure fake GPIO OUTPUT pin')

    def value(self, *a):
        if len(a) > 1:
            raise TypeError('function expected at most 2 arguments, got %d' % (len(a) + 1))
        if a:
            _c('fake_gpio_write', self._n, _int(a[0]))
            return None
        return _c('fake_gpio_read', self._n)

    def on(self):
        _c('fake_gpio_write', self._n, 1)

    def off(self):
        _c('fake_gpio_write', self._n, 0)

    def toggle(self):
        _c('fake_gpio_write', self._n, 0 if _c('fake_gpio_read', self._n) else 1)


class FakeGpioDisconnect:
    # `with FakeGpioDisconnect(a, b):` holds the path a-b open for the block.

    def __init__(self, *a, **k):
        _sig(a, k, 2, 2)
        self._a = _int(a[0])
        self._b = _int(a[1])

    def __enter__(self):
        if not _c('fake_gpio_disconnect', self._a, self._b):
            raise ValueError('Failed to disconnect path')
        return self

    def __exit__(self, *exc):
        if not _c('fake_gpio_reconnect', self._a, self._b):
            raise ValueError('Failed to reconnect path')


def help(*a, **k):
    _sig(a, k, 0, 1)
    print(_c('help_text', _str_arg(a[0]) if a else None), end='')


def nodes_help(*a, **k):
    _sig(a, k, 0, 0)
    print(_c('nodes_help_text'), end='')


def check_interrupt():
    _c('check_interrupt')


def walk(p='/'):
    # f|path|size for files and d|path|0 for folders, depth first.
    base = p.rstrip('/')
    for entry in _c('jfs_listdir', p):
        if entry.endswith('/'):
            path = base + '/' + entry[:-1]
            print('d|%s|0' % path)
            walk(path)
        else:
            path = base + '/' + entry
            print('f|%s|%d' % (path, _c('jfs_stat', path)[6]))
