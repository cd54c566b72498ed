# Argument conversions shared by the probe/OLED/overlay/filesystem/misc groups, matching what the
# C module's helpers raise (mp_obj_str_get_str, mp_obj_get_array, mp_get_buffer_raise).


def _str_arg(x):
    if isinstance(x, str):
        return x
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
