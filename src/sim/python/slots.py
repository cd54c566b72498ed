# Slots, state and context. CURRENT_SLOT is a function, as in the module table.

@_native
def nodes_save(*a, **k):
    # Errors (a slot other than 0-7 and 99) go to the main port; the slot asked for comes back.
    _sig(a, k, 0, 1)
    return _c('nodes_save', _int(a[0]) if a else -1)


@_native
def switch_slot(*a, **k):
    _sig(a, k, 1, 1)
    return _c('switch_slot', _int(a[0]))


@_native
def CURRENT_SLOT(*a, **k):
    _sig(a, k, 0, 0)
    return _c('CURRENT_SLOT')


@_native
def nodes_discard(*a, **k):
    _sig(a, k, 0, 0)
    _c('nodes_discard')


@_native
def nodes_has_changes(*a, **k):
    _sig(a, k, 0, 0)
    return _c('nodes_has_changes')


@_native
def get_state(*a, **k):
    _sig(a, k, 0, 0)
    return _c('get_state')


@_native
def set_state(*a, **k):
    # mp_obj_str_get_str takes str or bytes. Failures print `set_state error: ...` on the main
    # port and return -1 (no exception).
    _sig(a, k, 1, 3)
    text = a[0]
    if isinstance(text, bytes):
        text = ''.join(chr(b) for b in text)
    text = _str(text)
    clear_first = bool(a[1]) if len(a) > 1 else True
    from_wokwi = bool(a[2]) if len(a) > 2 else False
    return _c('set_state', text, clear_first, from_wokwi)


@_native
def context_get(*a, **k):
    _sig(a, k, 0, 0)
    return _c('context_get')


@_native
def context_toggle(*a, **k):
    _sig(a, k, 0, 0)
    _c('context_toggle')
