# Placed parts and projects (5.7.11): place_part, list_parts, remove_part, part_identify,
# load_project, guide_progress. Source: the "Projects + parts" block of modjumperless.c
# (SophisticaSean/JumperlOS@0a5dc31, the same API the 5.7.11 handoff lists).


@_native
def load_project(*a, **k):
    _sig(a, k, 1, 1)
    return _c('load_project', _str_arg(a[0]))


@_native
def place_part(*a, **k):
    _sig(a, k, 3, 7)
    name = _str_arg(a[0])
    row = _int(a[1])
    pins = _str_arg(a[2])
    rest = [_str_arg(x) for x in a[3:]]
    return _c('place_part', name, row, pins, *rest)


@_native
def remove_part(*a, **k):
    _sig(a, k, 1, 1)
    return _c('remove_part', _str_arg(a[0]))


@_native
def list_parts(*a, **k):
    _sig(a, k, 0, 0)
    out = []
    for p in _c('list_parts'):
        p['measured'] = _pf(p['measured'])
        out.append(p)
    return out


@_native
def part_identify(*a, **k):
    _sig(a, k, 2, 3)
    return _c('part_identify', _int(a[0]), _int(a[1]), _int(a[2]) if len(a) > 2 else -1)


@_native
def guide_progress(*a, **k):
    _sig(a, k, 0, 0)
    return _c('guide_progress')
