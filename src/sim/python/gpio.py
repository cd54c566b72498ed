# Routable GPIO (spec 6.7): pins 1-8 = GPIO_1..8, 9 = UART TX, 10 = UART RX; 20-27 are the RP2350
# numbers of GPIO_1..8. The argument conversions follow the C module, in its order.

_PIN_ERR = 'GPIO pin must be 1-10, GPIO_1-GPIO_8, GPIO_20-GPIO_27, or UART_TX/UART_RX'


def _pin(x):
    # map_pin_obj_to_physical_gpio: a node maps GPIO_x to 20-27 and UART_TX/RX to 0/1 (so UART_RX
    # lands on pin 1, which the backends read as GPIO_1: a firmware quirk kept on purpose).
    if type(x) is _Node:
        v = x._v
        p = v - 111 if 131 <= v <= 138 else 0 if v == 116 else 1 if v == 117 else -1
    else:
        p = _int(x)
    return p if 0 <= p <= 10 or 20 <= p <= 27 else -1


def _need(p):
    if p < 0:
        raise ValueError(_PIN_ERR)


def _gpio_value(x):
    if type(x) is bool:
        return 1 if x else 0
    if isinstance(x, int):
        return _int(x)
    if isinstance(x, str):
        if x in ('HIGH', 'high', '1'):
            return 1
        if x in ('LOW', 'low', '0'):
            return 0
        if x in ('FLOATING', 'floating', 'Z', 'z'):
            return 2
        raise ValueError("GPIO state string must be 'HIGH', 'LOW', or 'FLOATING'")
    if type(x) is _GPIOState:
        return x._v
    return 1 if _int(x) else 0


def _dir_value(x):
    # Firmware convention 0 = OUTPUT, 1 = INPUT for ints; True/OUTPUT/"OUT" = output.
    if type(x) is bool:
        return 0 if x else 1
    if isinstance(x, int):
        return 1 if _int(x) else 0
    if isinstance(x, str):
        if x in ('OUTPUT', 'output', 'OUT', 'out'):
            return 0
        if x in ('INPUT', 'input', 'IN', 'in'):
            return 1
        raise ValueError("Direction string must be 'INPUT' or 'OUTPUT'")
    if type(x) is _GPIODirection:
        return 0 if x._v else 1
    return 1 if _int(x) else 0


def _pull_value(x):
    if type(x) is bool:
        return 1 if x else 0
    if isinstance(x, int):
        return _int(x)
    if isinstance(x, str):
        if x in ('PULLUP', 'pullup', 'UP', 'up'):
            return 1
        if x in ('PULLDOWN', 'pulldown', 'DOWN', 'down'):
            return -1
        if x in ('NO_PULL', 'no_pull', 'NOPULL', 'nopull', 'NONE', 'none', 'OFF', 'off'):
            return 0
        if x in ('BUS_KEEPER', 'bus_keeper', 'BUSKEEPER', 'buskeeper'):
            return 2
        raise ValueError("Pull string must be 'NO_PULL', 'PULLUP', 'PULLDOWN', or 'BUS_KEEPER'")
    if type(x) is _GPIOPull:
        return x._v
    return _int(x)


@_native
def gpio_set(*a, **k):
    _sig(a, k, 2, 2)
    p = _pin(a[0])
    v = _gpio_value(a[1])
    _need(p)
    _c('gpio_set', p, v)


@_native
def gpio_get(*a, **k):
    _sig(a, k, 1, 1)
    p = _pin(a[0])
    _need(p)
    return _state(_c('gpio_get', p))


@_native
def gpio_set_dir(*a, **k):
    _sig(a, k, 2, 2)
    p = _pin(a[0])
    d = _dir_value(a[1])
    _need(p)
    _c('gpio_set_dir', p, d)


@_native
def gpio_get_dir(*a, **k):
    _sig(a, k, 1, 1)
    p = _pin(a[0])
    _need(p)
    return OUTPUT if _c('gpio_get_dir', p) == 0 else INPUT


@_native
def gpio_set_pull(*a, **k):
    _sig(a, k, 2, 2)
    p = _pin(a[0])
    v = _pull_value(a[1])
    _need(p)
    _c('gpio_set_pull', p, v)


@_native
def gpio_get_pull(*a, **k):
    _sig(a, k, 1, 1)
    p = _pin(a[0])
    _need(p)
    return _GPIOPull(_c('gpio_get_pull', p))


@_native
def gpio_set_read_floating(*a, **k):
    _sig(a, k, 2, 2)
    p = _pin(a[0])
    _need(p)
    _c('gpio_set_read_floating', p, bool(a[1]))


@_native
def gpio_get_read_floating(*a, **k):
    _sig(a, k, 1, 1)
    p = _pin(a[0])
    _need(p)
    return _c('gpio_get_read_floating', p)


@_native
def gpio_claim_pin(*a, **k):
    _sig(a, k, 1, 1)
    p = _pin(a[0])
    _need(p)
    _c('gpio_claim_pin', p)


@_native
def gpio_release_pin(*a, **k):
    _sig(a, k, 1, 1)
    p = _pin(a[0])
    _need(p)
    _c('gpio_release_pin', p)


@_native
def gpio_release_all_pins(*a, **k):
    _sig(a, k, 0, 0)
    _c('gpio_release_all_pins')


set_gpio = gpio_set
get_gpio = gpio_get
set_gpio_dir = gpio_set_dir
get_gpio_dir = gpio_get_dir
set_gpio_pull = gpio_set_pull
get_gpio_pull = gpio_get_pull
set_gpio_read_floating = gpio_set_read_floating
get_gpio_read_floating = gpio_get_read_floating
