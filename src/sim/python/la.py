# The logic analyser calls (modjumperless.c:5787-5878, JumperlessMicroPythonAPI.cpp:1602-1687).
# From Python they mostly configure a capture that nobody reads back: triggers are not implemented,
# the control channels are empty, and a capture streams its data on USB, not to Python.


@_native
def la_set_trigger(*a, **k):
    _sig(a, k, 3, 3)
    return _c('la_set_trigger', _int(a[0]), _int(a[1]), _jf(_flt(a[2])))


@_native
def la_capture_single_sample(*a, **k):
    _sig(a, k, 0, 0)
    return _c('la_capture_single_sample')


@_native
def la_start_continuous_capture(*a, **k):
    _sig(a, k, 0, 0)
    return _c('la_start_continuous_capture')


@_native
def la_stop_capture(*a, **k):
    _sig(a, k, 0, 0)
    return _c('la_stop_capture')


@_native
def la_is_capturing(*a, **k):
    _sig(a, k, 0, 0)
    return _c('la_is_capturing')


@_native
def la_set_sample_rate(*a, **k):
    _sig(a, k, 1, 1)
    _c('la_set_sample_rate', _int(a[0]))


@_native
def la_set_num_samples(*a, **k):
    _sig(a, k, 1, 1)
    _c('la_set_num_samples', _int(a[0]))


@_native
def la_enable_channel(*a, **k):
    _sig(a, k, 3, 3)
    _c('la_enable_channel', _int(a[0]), _int(a[1]), bool(a[2]))


@_native
def la_set_control_analog(*a, **k):
    # jl_control_set_analog's body is commented out (API.cpp:1589-1593).
    _sig(a, k, 2, 2)
    _int(a[0])
    _flt(a[1])


@_native
def la_set_control_digital(*a, **k):
    _sig(a, k, 2, 2)
    _int(a[0])
    bool(a[1])


@_native
def la_get_control_analog(*a, **k):
    _sig(a, k, 1, 1)
    _int(a[0])
    return 0.0


@_native
def la_get_control_digital(*a, **k):
    _sig(a, k, 1, 1)
    _int(a[0])
    return False
