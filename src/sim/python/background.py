# bg_start / bg_stop / bg_active (5.7.11): one callback the main loop ticks after the script that
# registered it has ended, never while another runs; one that raises is dropped with its traceback.
# Source: the "Background callback" block of modjumperless.c (SophisticaSean/JumperlOS@0a5dc31).

_bg = [None, 50, 0]   # [callback, interval_ms, last tick]


@_native
def bg_start(*a, **k):
    _sig(a, k, 1, 2)
    cb = a[0]
    if cb is None:
        _bg[0] = None
        _c('_bg_set', False)
        return None
    if not callable(cb):
        raise TypeError('bg_start: callable required')
    interval = _int(a[1]) if len(a) > 1 else 50
    _bg[0] = cb
    _bg[1] = interval if interval >= 10 else 10
    _bg[2] = 0
    _c('_bg_set', True)
    return None


@_native
def bg_stop(*a, **k):
    _sig(a, k, 0, 0)
    _bg[0] = None
    _c('_bg_set', False)
    return None


@_native
def bg_active(*a, **k):
    _sig(a, k, 0, 0)
    return _bg[0] is not None


def _bg_tick(now_ms):
    # Called by the board's main loop (vmWorker) between scripts.
    cb = _bg[0]
    if cb is None:
        return
    if _bg[2] != 0 and now_ms - _bg[2] < _bg[1]:
        return
    _bg[2] = now_ms
    try:
        cb(now_ms)
    except Exception as e:
        import sys
        print('[bg] callback raised; deactivated')
        sys.print_exception(e)
        _bg[0] = None
        _c('_bg_set', False)
