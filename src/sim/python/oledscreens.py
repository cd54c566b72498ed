# Retained OLED screens (modjumperless.c:3388-3525): screen handles 1-8, element handles
# (screen << 8) | index. The firmware's /python_scripts/lib/oledgui.py builds classes on these.


def oled_screen(*a, **k):
    _sig(a, k, 0, 0)
    return _c('oled_screen')


def oled_screen_free(*a, **k):
    _sig(a, k, 1, 1)
    _c('oled_screen_free', _int(a[0]))


def oled_screen_clear(*a, **k):
    _sig(a, k, 1, 1)
    _c('oled_screen_clear', _int(a[0]))


def oled_screen_show(*a, **k):
    _sig(a, k, 1, 2)
    persist = bool(a[1]) if len(a) > 1 else False
    return _c('oled_screen_show', _int(a[0]), persist)


def oled_screen_hide(*a, **k):
    _sig(a, k, 0, 0)
    _c('oled_screen_hide')


def oled_screen_reset(*a, **k):
    _sig(a, k, 0, 0)
    _c('oled_screen_reset')


_ADD_TEXT = (
    ('screen', True, _REQUIRED), ('text', False, _REQUIRED), ('x', True, 0), ('y', True, 0),
    ('font', False, None), ('size', True, 8), ('halign', True, -1), ('valign', True, -1), ('z', True, 0),
)


def oled_add_text(*a, **k):
    # At least two positional arguments (MP_DEFINE_CONST_FUN_OBJ_KW(..., 2, ...)): text cannot
    # come by keyword although the parser names it.
    screen, text, x, y, font, size, halign, valign, z = _kwargs(a, k, _ADD_TEXT, 2)
    text = _str_arg(text)
    if font is not None:
        font = _str_arg(font)
    return _c('oled_add_text', screen, text, x, y, font, size, halign, valign, z)


_ADD_SHAPE = (
    ('screen', True, _REQUIRED), ('kind', True, 1), ('x', True, 0), ('y', True, 0), ('w', True, 0),
    ('h', True, 0), ('filled', True, 0), ('z', True, 0),
)


def oled_add_shape(*a, **k):
    return _c('oled_add_shape', *_kwargs(a, k, _ADD_SHAPE, 1))


def oled_set(*a, **k):
    # A str value goes to the text/font setter, anything else through mp_obj_get_int.
    _sig(a, k, 3, 3)
    elem = _int(a[0])
    prop = _str_arg(a[1])
    if isinstance(a[2], str):
        return _c('oled_set_str', elem, prop, a[2])
    return _c('oled_set_int', elem, prop, _int(a[2]))


def oled_set_var(*a, **k):
    # A str is kept as it is; anything else becomes a float (printed with %g).
    _sig(a, k, 2, 2)
    name = _str_arg(a[0])
    if isinstance(a[1], str):
        _c('oled_set_var', name, a[1])
    else:
        _c('oled_set_var_num', name, _jf(_flt(a[1])))


def oled_screen_save(*a, **k):
    _sig(a, k, 2, 2)
    return _c('oled_screen_save', _int(a[0]), _str_arg(a[1]))


def oled_screen_load(*a, **k):
    _sig(a, k, 1, 1)
    return _c('oled_screen_load', _str_arg(a[0]))
