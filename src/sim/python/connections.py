# Bridges and paths (spec 6.3). Failures the firmware keeps silent stay silent.

def connect(*a, **k):
    _sig(a, k, 2, 3)
    n1 = _node(a[0])
    n2 = _node(a[1])
    _c('connect', n1, n2, _int(a[2]) if len(a) > 2 else -1)


def disconnect(*a, **k):
    _sig(a, k, 2, 2)
    _c('disconnect', _node(a[0]), _node(a[1]))


def fast_connect(*a, **k):
    _sig(a, k, 2, 3)
    n1 = _node(a[0])
    n2 = _node(a[1])
    _c('fast_connect', n1, n2, _int(a[2]) if len(a) > 2 else -1)


def fast_disconnect(*a, **k):
    _sig(a, k, 2, 2)
    _c('fast_disconnect', _node(a[0]), _node(a[1]))


def is_connected(*a, **k):
    _sig(a, k, 2, 2)
    return _ConnectionState(_c('is_connected', _node(a[0]), _node(a[1])))


def nodes_clear(*a, **k):
    _sig(a, k, 0, 0)
    _c('nodes_clear')


def get_num_bridges(*a, **k):
    _sig(a, k, 0, 0)
    return _c('get_num_bridges')


def get_bridge(*a, **k):
    _sig(a, k, 1, 1)
    b = _c('get_bridge', _int(a[0]))
    return None if b is None else tuple(b)


def get_num_paths(*a, **k):
    _sig(a, k, 0, 1)
    return _c('get_num_paths', bool(a[0]) if a else True)


def get_path_info(*a, **k):
    _sig(a, k, 1, 1)
    return _c('get_path_info', _int(a[0]))


def get_all_paths(*a, **k):
    _sig(a, k, 0, 0)
    return _c('get_all_paths')


def get_path_between(*a, **k):
    _sig(a, k, 2, 2)
    return _c('get_path_between', _int(a[0]), _int(a[1]))


def undo(*a, **k):
    _sig(a, k, 0, 0)
    return _c('undo')


def redo(*a, **k):
    _sig(a, k, 0, 0)
    return _c('redo')


def history_position(*a, **k):
    _sig(a, k, 0, 0)
    return _c('history_position')


def history_size(*a, **k):
    _sig(a, k, 0, 0)
    return _c('history_size')


def history_label(*a, **k):
    _sig(a, k, 0, 1)
    return _c('history_label', _int(a[0]) if a else 0)


def history_jump(*a, **k):
    _sig(a, k, 1, 1)
    return _c('history_jump', _int(a[0]))


def history_snapshot(*a, **k):
    _sig(a, k, 0, 0)
    return _c('history_snapshot')


def history_snapshot_count(*a, **k):
    _sig(a, k, 0, 0)
    return _c('history_snapshot_count')
