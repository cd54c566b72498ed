# The 128x32 OLED (spec 6.11). oled_print is print-like; oled_copy_print mirrors print() by
# wrapping builtins.print (the original is kept on the builtins module, so a soft reset that runs
# this file again still finds it).
import builtins as _bi

try:
    _oled_plain_print = _bi._jl_plain_print
except AttributeError:
    _oled_plain_print = _bi._jl_plain_print = _bi.print


def _oled_mirror_print(*args, **kw):
    _oled_plain_print(*args, **kw)
    if kw.get('file') is None:
        sep = kw.get('sep')
        end = kw.get('end')
        text = (' ' if sep is None else sep).join([str(x) for x in args])
        _c('_oled_mirror', text + ('\n' if end is None else end))


def _oled_hook(on):
    _bi.print = _oled_mirror_print if on else _oled_plain_print


def oled_print(*values, **kw):
    # modjumperless.c:3134-3197: sep, end and size are keyword-only; the older form
    # oled_print(text, size) counts only with no keywords and an int (not a bool) second value.
    sep, end, size = _kwargs((), kw, (('sep', False, None), ('end', False, None), ('size', True, -1)), 0)
    if sep is None:
        sep = ' '
    elif not isinstance(sep, str):
        raise TypeError('sep must be str or None')
    if end is None:
        end = ''
    elif not isinstance(end, str):
        raise TypeError('end must be str or None')
    if not kw and len(values) == 2 and type(values[1]) is int:
        size = values[1]
        values = values[:1]
    _c('oled_print', sep.join([str(v) for v in values]) + end, size)


def oled_clear(*a, **k):
    _sig(a, k, 0, 1)
    _c('oled_clear', bool(a[0]) if a else True)


def oled_show(*a, **k):
    _sig(a, k, 0, 0)
    _c('oled_show')


def oled_connect(*a, **k):
    _sig(a, k, 0, 0)
    _c('oled_connect')


def oled_disconnect(*a, **k):
    _sig(a, k, 0, 0)
    _c('oled_disconnect')


def oled_set_text_size(*a, **k):
    _sig(a, k, 1, 1)
    return _c('oled_set_text_size', _int(a[0]))


def oled_get_text_size(*a, **k):
    _sig(a, k, 0, 0)
    return _c('oled_get_text_size')


def oled_copy_print(*a, **k):
    _sig(a, k, 1, 1)
    on = bool(a[0])
    _c('oled_copy_print', on)
    _oled_hook(on)


def oled_get_fonts(*a, **k):
    _sig(a, k, 0, 0)
    return _c('oled_get_fonts')


def oled_set_font(*a, **k):
    _sig(a, k, 1, 1)
    return _c('oled_set_font', _str_arg(a[0]))


def oled_get_current_font(*a, **k):
    _sig(a, k, 0, 0)
    return _c('oled_get_current_font')


def oled_load_bitmap(*a, **k):
    _sig(a, k, 1, 1)
    return _c('oled_load_bitmap', _str_arg(a[0]))


def oled_display_bitmap(*a, **k):
    _sig(a, k, 4, 5)
    x, y, w, h = _int(a[0]), _int(a[1]), _int(a[2]), _int(a[3])
    data = _buf_arg(a[4]) if len(a) > 4 and a[4] is not None else None
    return _c('oled_display_bitmap', x, y, w, h, data)


def oled_show_bitmap_file(*a, **k):
    _sig(a, k, 3, 3)
    return _c('oled_show_bitmap_file', _str_arg(a[0]), _int(a[1]), _int(a[2]))


def oled_get_framebuffer(*a, **k):
    _sig(a, k, 0, 0)
    fb = _c('oled_get_framebuffer')
    return None if fb is None else bytes(fb)


def oled_set_framebuffer(*a, **k):
    _sig(a, k, 1, 1)
    return _c('oled_set_framebuffer', _buf_arg(a[0]))


def oled_get_framebuffer_size(*a, **k):
    _sig(a, k, 0, 0)
    return tuple(_c('oled_get_framebuffer_size'))


def oled_set_pixel(*a, **k):
    _sig(a, k, 3, 3)
    return _c('oled_set_pixel', _int(a[0]), _int(a[1]), _int(a[2]))


def oled_get_pixel(*a, **k):
    _sig(a, k, 2, 2)
    return _c('oled_get_pixel', _int(a[0]), _int(a[1]))


# Copy-print survives a soft reset (it is firmware state): put the hook back if it was on.
_oled_hook(_c('_oled_copy_print_get'))
