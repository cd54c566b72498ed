# The waveform generator (spec 6.8). Constants SINE.. live in types.py.

def _wg_channel(x):
    v = _node(x)
    ch = {106: 0, 107: 1, 101: 2, 102: 3}.get(v, v if 0 <= v <= 3 else -1)
    if ch < 0:
        raise ValueError('Invalid output. Use DAC0, DAC1, TOP_RAIL, BOTTOM_RAIL')
    return ch


def _wave(x):
    if type(x) is not bool and isinstance(x, int):
        w = _int(x)
        if w < 0 or w > 4:
            raise ValueError('Waveform must be 0-4')
        return w
    if isinstance(x, str):
        up = x[:23].upper()
        if up == 'SINE':
            return 0
        if up in ('TRIANGLE', 'TRI'):
            return 1
        if up in ('RAMP', 'SAW', 'SAWTOOTH'):
            return 2
        if up in ('SQUARE', 'SQ'):
            return 3
        if up in ('ARBITRARY', 'ARB'):
            return 4
        raise ValueError('Unknown waveform')
    raise TypeError('Expected int or string for waveform')


@_native
def wavegen_set_output(*a, **k):
    _sig(a, k, 1, 1)
    _c('wavegen_set_output', _wg_channel(a[0]))


@_native
def wavegen_set_freq(*a, **k):
    _sig(a, k, 1, 1)
    _c('wavegen_set_freq', _jf(_flt(a[0])))


@_native
def wavegen_set_wave(*a, **k):
    _sig(a, k, 1, 1)
    w = _wave(a[0])
    if w == 4:
        raise NotImplementedError('ARBITRARY waveform not implemented yet')
    _c('wavegen_set_wave', w)


@_native
def wavegen_set_sweep(*a, **k):
    _sig(a, k, 3, 3)
    _c('wavegen_set_sweep', _jf(_flt(a[0])), _jf(_flt(a[1])), _jf(_flt(a[2])))


@_native
def wavegen_set_amplitude(*a, **k):
    _sig(a, k, 1, 1)
    _c('wavegen_set_amplitude', _jf(_flt(a[0])))


@_native
def wavegen_set_offset(*a, **k):
    _sig(a, k, 1, 1)
    _c('wavegen_set_offset', _jf(_flt(a[0])))


@_native
def wavegen_start(*a, **k):
    _sig(a, k, 0, 1)
    _c('wavegen_start', bool(a[0]) if a else True)


@_native
def wavegen_stop(*a, **k):
    _sig(a, k, 0, 0)
    _c('wavegen_stop')


@_native
def wavegen_get_output(*a, **k):
    _sig(a, k, 0, 0)
    return _c('wavegen_get_output')


@_native
def wavegen_get_freq(*a, **k):
    _sig(a, k, 0, 0)
    return _pf(_c('wavegen_get_freq'))


@_native
def wavegen_get_wave(*a, **k):
    _sig(a, k, 0, 0)
    return _c('wavegen_get_wave')


@_native
def wavegen_get_amplitude(*a, **k):
    _sig(a, k, 0, 0)
    return _pf(_c('wavegen_get_amplitude'))


@_native
def wavegen_get_offset(*a, **k):
    _sig(a, k, 0, 0)
    return _pf(_c('wavegen_get_offset'))


@_native
def wavegen_is_running(*a, **k):
    _sig(a, k, 0, 0)
    return _c('wavegen_is_running')


set_wavegen_output = wavegen_set_output
set_wavegen_freq = wavegen_set_freq
set_wavegen_wave = wavegen_set_wave
set_wavegen_sweep = wavegen_set_sweep
set_wavegen_amplitude = wavegen_set_amplitude
set_wavegen_offset = wavegen_set_offset
start_wavegen = wavegen_start
stop_wavegen = wavegen_stop
get_wavegen_output = wavegen_get_output
get_wavegen_freq = wavegen_get_freq
get_wavegen_wave = wavegen_get_wave
get_wavegen_amplitude = wavegen_get_amplitude
get_wavegen_offset = wavegen_get_offset
