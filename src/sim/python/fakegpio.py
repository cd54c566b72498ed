# Fake GPIO pins on breadboard rows (spec §6.14): FakeGpioPin and FakeGpioDisconnect, native types
# of the C module (modjumperless.c:2888-3130). The mode is read as an int, so the GPIODirection
# constants count the other way round: FakeGpioPin(n, OUTPUT) (int 0) makes an input.

FAKE_GPIO_INPUT = 0
FAKE_GPIO_OUTPUT = 1
_SOURCE_NODES = (100, 101, 102, 106, 107)


class FakeGpioPin:
    # Inputs threshold a row's voltage; outputs are disabled in 5.7.0.13: they are created
    # without error, configure nothing, and read -1.

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
            if _c('fake_gpio_config_input', self._n, _jf(hi), _jf(lo)) < 0:
                raise ValueError('Failed to configure fake GPIO INPUT pin')
            return
        # Arg 2 is read as an int first: a node constant picks the node-based form, anything
        # else is a voltage (so a float voltage is a TypeError).
        nodes = len(a) > 2 and _int(a[2]) in _SOURCE_NODES
        if nodes and len(a) > 3 and _int(a[3]) not in _SOURCE_NODES:
            raise ValueError('Invalid low_node - must be TOP_RAIL/BOTTOM_RAIL/DAC0/DAC1/GND')
        if not nodes:
            if len(a) > 2:
                _flt(a[2])
            if len(a) > 3:
                _flt(a[3])
        r = _c('fake_gpio_config_output_nodes' if nodes else 'fake_gpio_config_output', self._n)
        if r < 0:
            raise ValueError('Failed to configure fake GPIO OUTPUT pin')

    def __repr__(self):
        return '<FakeGpioPin>'

    # The methods are builtins too: their argument counts include self.
    def value(self, *a, **k):
        _sig((self,) + a, k, 1, 2)
        if a:
            _c('fake_gpio_write', self._n, _int(a[0]))
            return None
        return _c('fake_gpio_read', self._n)

    def on(self, *a, **k):
        _sig((self,) + a, k, 1, 1)
        _c('fake_gpio_write', self._n, 1)

    def off(self, *a, **k):
        _sig((self,) + a, k, 1, 1)
        _c('fake_gpio_write', self._n, 0)

    def toggle(self, *a, **k):
        _sig((self,) + a, k, 1, 1)
        _c('fake_gpio_write', self._n, 0 if _c('fake_gpio_read', self._n) else 1)


class FakeGpioDisconnect:
    # `with FakeGpioDisconnect(a, b):` is meant to hold the path a-b open for the block; the
    # firmware's backend returns -1 at once, which the module does not treat as a failure.

    def __init__(self, *a, **k):
        _sig(a, k, 2, 2)
        self._a = _int(a[0])
        self._b = _int(a[1])

    def __repr__(self):
        return '<FakeGpioDisconnect>'

    def __enter__(self):
        if not _c('fake_gpio_disconnect', self._a, self._b):
            raise ValueError('Failed to disconnect path')
        return self

    def __exit__(self, *exc):
        if not _c('fake_gpio_reconnect', self._a, self._b):
            raise ValueError('Failed to reconnect path')
