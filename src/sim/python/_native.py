# Native builtins. The C module binds every function as a builtin (MP_DEFINE_CONST_FUN_OBJ_*),
# whose type is named "function" and which prints as <function> (objfun.c, obj.c:131); a Python
# def prints as <function name at 0x...>. _native wraps a def so that it looks like one.
# Aliases must wrap once and share the object (`set_dac is dac_set`).


class function:
    def __init__(self, f):
        self._f = f

    def __call__(self, *a, **k):
        return self._f(*a, **k)

    def __repr__(self):
        return '<function>'


_native = function
del function
