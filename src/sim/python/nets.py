# Nets (spec 6.9): names, colours, members; the printers write to the main port, not stdout.

def _str(x):
    # mp_obj_str_get_str takes a str or a bytes (objstr.c:2384-2392), the bytes as they are.
    if isinstance(x, str):
        return x
    if isinstance(x, bytes):
        return ''.join(chr(b) for b in x)
    raise TypeError("can't convert '%s' object to str implicitly" % type(x).__name__)


def get_net_name(*a, **k):
    _sig(a, k, 1, 1)
    return _c('get_net_name', _int(a[0]))


def set_net_name(*a, **k):
    _sig(a, k, 2, 2)
    n = _int(a[0])
    _c('set_net_name', n, None if a[1] is None else _str(a[1]))


def get_net_color(*a, **k):
    _sig(a, k, 1, 1)
    return _c('get_net_color', _int(a[0]))


def get_net_color_name(*a, **k):
    _sig(a, k, 1, 1)
    return _c('get_net_color_name', _int(a[0]))


def set_net_color(*a, **k):
    _sig(a, k, 2, 4)
    n = _int(a[0])
    if len(a) == 2:
        c = a[1]
        if isinstance(c, str):
            return _c('set_net_color', n, c)
        if type(c) is not bool and isinstance(c, int):
            return _c('set_net_color', n, _int(c) & 0xFFFFFF)
        if type(c) in (tuple, list) and len(c) >= 3:
            return _c('set_net_color', n, [_int(c[0]), _int(c[1]), _int(c[2])])
        raise ValueError('Color must be string name, hex integer, or (r,g,b) tuple')
    if len(a) == 4:
        return _c('set_net_color', n, _int(a[1]), _int(a[2]), _int(a[3]))
    raise ValueError('Invalid arguments for set_net_color')


def set_net_color_hsv(*a, **k):
    _sig(a, k, 2, 4)
    n = _int(a[0])
    h = _flt(a[1])
    s = _flt(a[2]) if len(a) > 2 else -1.0
    v = _flt(a[3]) if len(a) > 3 else -1.0
    return _c('set_net_color_hsv', n, _jf(h), _jf(s), _jf(v))


def get_num_nets(*a, **k):
    _sig(a, k, 0, 0)
    return _c('get_num_nets')


def get_net_nodes(*a, **k):
    _sig(a, k, 1, 1)
    return _c('get_net_nodes', _int(a[0]))


def get_net_info(*a, **k):
    _sig(a, k, 1, 1)
    return _c('get_net_info', _int(a[0]))


def get_all_nets(*a, **k):
    _sig(a, k, 0, 0)
    return _c('get_all_nets')


def print_nets(*a, **k):
    _sig(a, k, 0, 0)
    _c('print_nets')


def print_bridges(*a, **k):
    _sig(a, k, 0, 0)
    _c('print_bridges')


def print_paths(*a, **k):
    _sig(a, k, 0, 0)
    _c('print_paths')


net_name = get_net_name
net_info = get_net_info


def print_crossbars(*a, **k):
    _sig(a, k, 0, 0)
    _c('print_crossbars')


def print_chip_status(*a, **k):
    _sig(a, k, 0, 0)
    _c('print_chip_status')
