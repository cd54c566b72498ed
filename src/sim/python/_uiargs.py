# Argument conversions shared by the probe/OLED/overlay/filesystem/misc groups, matching what the
# C module's helpers raise (mp_obj_str_get_str, mp_obj_get_array, mp_get_buffer_raise).


def _str_arg(x):
    # mp_obj_str_get_str takes a str or a bytes (objstr.c:2384-2392), the bytes as they are.
    if isinstance(x, str):
        return x
    if isinstance(x, bytes):
        return ''.join(chr(b) for b in x)
    raise TypeError("can't convert '%s' object to str implicitly" % type(x).__name__)


def _seq_arg(x):
    if isinstance(x, (list, tuple)):
        return x
    raise TypeError("object '%s' isn't a tuple or list" % type(x).__name__)


def _buf_arg(x):
    # A bytes-like object (str too: it exposes a buffer in MicroPython) as a list of byte values.
    if isinstance(x, str):
        return list(x.encode())
    if isinstance(x, (bytes, bytearray, memoryview)):
        return list(bytes(x))
    try:
        return list(bytes(memoryview(x)))
    except TypeError:
        raise TypeError('object with buffer protocol required')


def _kwargs(pos, kw, spec, n_pos_min):
    # A native function taking keywords (MP_DEFINE_CONST_FUN_OBJ_KW + mp_arg_parse_all,
    # argcheck.c:32-131): spec is ((name, is_int, default), ...), default _REQUIRED for required.
    # Returns the values in spec order, ints converted as mp_obj_get_int does.
    if len(pos) < n_pos_min:
        raise TypeError('function missing %d required positional arguments' % (n_pos_min - len(pos)))
    out = []
    used = 0
    for i, (name, is_int, default) in enumerate(spec):
        if i < len(pos):
            v = pos[i]
        elif name in kw:
            v = kw[name]
            used += 1
        elif default is _REQUIRED:
            raise TypeError("'%s' argument required" % name)
        else:
            out.append(default)
            continue
        out.append(_int(v) if is_int else v)
    if len(pos) > len(spec):
        raise TypeError('extra positional arguments given')
    if used < len(kw):
        raise TypeError('extra keyword arguments given')
    return out


_REQUIRED = object()
