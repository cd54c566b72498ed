# Slots, state and context (spec 6.4, 7). CURRENT_SLOT is a function, as in the module table.

def nodes_save(*a, **k):
    _sig(a, k, 0, 1)
    return _c('nodes_save', _int(a[0]) if a else -1)


def switch_slot(*a, **k):
    _sig(a, k, 1, 1)
    return _c('switch_slot', _int(a[0]))


def CURRENT_SLOT(*a, **k):
    _sig(a, k, 0, 0)
    return _c('CURRENT_SLOT')


def nodes_discard(*a, **k):
    _sig(a, k, 0, 0)
    _c('nodes_discard')


def nodes_has_changes(*a, **k):
    _sig(a, k, 0, 0)
    return _c('nodes_has_changes')


def get_state(*a, **k):
    _sig(a, k, 0, 0)
    return _c('get_state')


def set_state(*a, **k):
    # Failures print `set_state error: ...` on the main port and return -1 (no exception).
    _sig(a, k, 1, 3)
    text = _str(a[0])
    clear_first = bool(a[1]) if len(a) > 1 else True
    from_wokwi = bool(a[2]) if len(a) > 2 else False
    return _c('set_state', text, clear_first, from_wokwi)


def context_get(*a, **k):
    _sig(a, k, 0, 0)
    return _c('context_get')


def context_toggle(*a, **k):
    _sig(a, k, 0, 0)
    _c('context_toggle')
