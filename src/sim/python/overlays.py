# LED overlays on the 10 x 30 breadboard canvas (spec 6.12). Argument order per the firmware
# source: overlay_set(name, x_col, y_row, height, width, colors).


def overlay_set(*a, **k):
    _sig(a, k, 6, 6)
    name = _str_arg(a[0])
    x, y, h, w = _int(a[1]), _int(a[2]), _int(a[3]), _int(a[4])
    need = w * h if w > 0 and h > 0 else 0
    flat = []
    items = _seq_arg(a[5])
    # malloc(width * height * 4) with a negative product asks for a size_t near 2**64: NULL, and
    # the firmware raises ENOMEM before reading a colour (modjumperless.c:5928-5933).
    if w * h < 0:
        raise OSError(12)
    # Nested rows are flattened; items past what the rectangle needs are never converted.
    for item in items:
        if isinstance(item, (list, tuple)):
            for c in item:
                if len(flat) < need:
                    flat.append(_int(c))
        elif len(flat) < need:
            flat.append(_int(item))
    return _c('overlay_set', name, x, y, h, w, flat)


def overlay_clear(*a, **k):
    _sig(a, k, 1, 1)
    return _c('overlay_clear', _str_arg(a[0]))


def overlay_clear_all(*a, **k):
    _sig(a, k, 0, 0)
    _c('overlay_clear_all')


def overlay_set_pixel(*a, **k):
    _sig(a, k, 3, 3)
    _c('overlay_set_pixel', _int(a[0]), _int(a[1]), _int(a[2]))


def overlay_count(*a, **k):
    _sig(a, k, 0, 0)
    return _c('overlay_count')


def overlay_shift(*a, **k):
    _sig(a, k, 3, 3)
    return _c('overlay_shift', _str_arg(a[0]), _int(a[1]), _int(a[2]))


def overlay_place(*a, **k):
    _sig(a, k, 3, 3)
    return _c('overlay_place', _str_arg(a[0]), _int(a[1]), _int(a[2]))


def overlay_serialize(*a, **k):
    _sig(a, k, 0, 0)
    return _c('overlay_serialize')
