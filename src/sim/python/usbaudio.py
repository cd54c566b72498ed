# USB audio (UAC2 microphone) of 5.7.x (modjumperless.c@796c56c). The virtual board has no USB
# audio: every call checks its arguments as the firmware does, and enabling answers False.


@_native
def usb_audio_setup(*a, **k):
    names = ('left', 'right', 'full_scale', 'dc_block')
    if len(a) > 4:
        raise TypeError('function expected at most 4 arguments, got %d' % len(a))
    v = {'left': 0, 'right': 1, 'full_scale': None, 'dc_block': True}
    for i, x in enumerate(a):
        v[names[i]] = x
    for key in k:
        if key not in names:
            raise TypeError("unexpected keyword argument '%s'" % key)
        if names.index(key) < len(a):
            raise TypeError('function got multiple values for argument')
        v[key] = k[key]
    left = _int(v['left'])
    right = _int(v['right'])
    fs = None if v['full_scale'] is None else _jf(_flt(v['full_scale']))
    return _c('usb_audio_setup', left, right, fs, bool(v['dc_block']))


@_native
def usb_audio_enable(*a, **k):
    _sig(a, k, 0, 0)
    return _c('usb_audio_enable')


@_native
def usb_audio_disable(*a, **k):
    _sig(a, k, 0, 0)
    return _c('usb_audio_disable')


@_native
def usb_audio_is_enabled(*a, **k):
    _sig(a, k, 0, 0)
    return _c('usb_audio_is_enabled')


@_native
def usb_audio_active(*a, **k):
    _sig(a, k, 0, 0)
    return False


@_native
def usb_audio_status(*a, **k):
    _sig(a, k, 0, 0)
    s = _c('usb_audio_status')
    s['full_scale'] = _pf(s['full_scale'])
    return s


@_native
def usb_audio_set_range(*a, **k):
    _sig(a, k, 1, 1)
    return _c('usb_audio_set_range', _jf(_flt(a[0])))


@_native
def usb_audio_set_rate(*a, **k):
    _sig(a, k, 1, 1)
    return _c('usb_audio_set_rate', _int(a[0]))


@_native
def usb_audio_save(*a, **k):
    _sig(a, k, 0, 0)
    _c('usb_audio_save')
    return True


usb_audio_teardown = usb_audio_disable
audio_setup = usb_audio_setup
audio_status = usb_audio_status
