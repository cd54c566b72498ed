# Fake GPIO pins on any node (spec 6.14): FakeGpioPin and FakeGpioDisconnect.

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
