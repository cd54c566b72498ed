# Miscellaneous calls (spec 6.14) and the Jumperless help() that shadows the built-in one (6.9).
# check_interrupt() and walk() are not module attributes: the firmware defines them in __main__
# (Python_Proper.cpp:2543-2600), and so does the VM's set-up (vmRuntime.ts).


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
    # The escape goes to the main port (Graphics.cpp:442-466), not to this REPL's output.
    _sig(a, k, 0, 2)
    _c('change_terminal_color', _int(a[0]) if a else -1)


def cycle_term_color(*a, **k):
    _sig(a, k, 0, 3)
    reset = bool(a[0]) if a else False
    step = _jf(_flt(a[1])) if len(a) > 1 else 100.0
    _c('cycle_term_color', reset, step)


def force_service(*a, **k):
    _sig(a, k, 1, 1)
    return _c('force_service', _str_arg(a[0]))


def force_service_by_index(*a, **k):
    _sig(a, k, 1, 1)
    return _c('force_service_by_index', _int(a[0]))


def get_service_index(*a, **k):
    _sig(a, k, 1, 1)
    return _c('get_service_index', _str_arg(a[0]))


def help(*a, **k):
    _sig(a, k, 0, 1)
    print(_c('help_text', _str_arg(a[0]) if a else None), end='')


def nodes_help(*a, **k):
    _sig(a, k, 0, 0)
    print(_c('nodes_help_text'), end='')
