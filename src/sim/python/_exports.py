# What the module exports: dir(jumperless) must list the firmware's table and nothing else
# (modjumperless.c:6029-6570): no private helpers, no __file__. The groups' functions still need
# their private helpers (_c, _sig, _int, ...) by name, and a function looks a global name up in its
# module first, then in builtins. So once every group's boot hook has run, each private name moves
# from the module's namespace into builtins, where the functions still find it; dir(builtins) does
# not list such names, and `from jumperless import *` never took them.
#
# For the groups: a module-level name starting with `_` is private and leaves the module at boot;
# read it by bare name (never `jumperless._x` or globals()['_x'] after boot), and do not rebind it
# with `global`, which would put it back into the module. Other VM modules that hold the module as
# `_jl` (imported before boot) keep reaching `_jl._c`; anything importing it later must use
# `from jumperless import _c` before boot, or call the public functions.

_groups_boot = _run_boot


class _Private:
    # What the VM's stand-in modules (time, machine: vmRuntime.ts) reach as `_jl._c`.
    _c = _c


def _run_boot():
    _groups_boot()
    _hide_private_names()


def _hide_private_names():
    import builtins
    import sys
    module = sys.modules['jumperless']
    names = module.__dict__
    # The groups define every release's functions; the module lists only those of the release
    # the board runs (board/firmware.ts).
    surface = set(_c('_api_surface'))
    for name in list(names):
        if name == '__name__':
            continue
        if not name.startswith('_'):
            if name not in surface:
                del names[name]
            continue
        if not name.startswith('__'):
            setattr(builtins, name, names[name])
        del names[name]
    # Modules imported before now that call `_jl._c(...)` get an object that still has `_c`.
    for other in list(sys.modules.values()):
        if other is not module and getattr(other, '_jl', None) is module:
            other._jl = _Private
