# `os` and builtin open() as the board has them: MicroPython's VFS layer (extmod/vfs.c, modos.c)
# with the firmware's VFS object `jfs` mounted at / (modjumperless.c:5496-5774), over the flash of
# files.py. _BOOT puts them in place of the VM's own (whose files are not the board's).
#
# The VFS part: '/' (or '' while the current directory is the root) is the virtual root, on which
# open/remove/rmdir raise EPERM and mkdir EEXIST; every other path goes to the flash unchanged, and
# FatFS resolves relative paths from the volume root (FF_FS_RPATH 0). os.chdir only edits a string
# (jl_vfs_chdir, 5537-5561) that os.listdir()/ilistdir('') and getcwd use.
import sys as _sys

# jl_vfs_cwd, and whether the VFS's current volume is the virtual root (mp_vfs_chdir).
_vfs = {'cwd': '/', 'root': True, 'foreign': False}
# (mount point, object) a script mounted besides the flash (mpremote mount): the VM's own VFS serves
# them, with the functions saved in _vfs_real.
_vfs_mounts = []
_vfs_real = {}


def _vfs_root(p):
    # mp_vfs_lookup_path: True when p is the virtual root itself.
    b = p.encode() if isinstance(p, str) else p
    if b[:1] == b'/':
        return b == b'/'
    return _vfs['root'] and b == b''


def _vfs_foreign(p):
    # True when p is on a filesystem a script mounted: under its mount point, or relative while the
    # current directory is in one.
    if isinstance(p, str) and p.startswith('/'):
        for point, _obj in _vfs_mounts:
            if p == point or p.startswith(point + '/'):
                return True
        return False
    return _vfs['foreign']


def _vfs_arg(p):
    _fpath(p)
    return p


def _os_listdir(*a, **k):
    _sig(a, k, 0, 1)
    return [t[0] for t in _os_ilistdir(*a)]


def _os_ilistdir(*a, **k):
    _sig(a, k, 0, 1)
    p = _vfs_arg(a[0] if a else '')
    if _vfs_foreign(p):
        return _vfs_real['ilistdir'](p)
    if _vfs_root(p):
        # The root lists the other mount points, then the flash (which stays last in the table).
        out = [(point[1:], 0x4000, 0) for point, _obj in _vfs_mounts]
        return iter(out + [tuple(t) for t in _listing(_c('vfs_ilistdir', '/'))])
    if p == '' or p == b'':
        p = _vfs['cwd']
    return iter([tuple(t) for t in _listing(_c('vfs_ilistdir', _fpath(p)))])


def _os_stat(p):
    _vfs_arg(p)
    if _vfs_foreign(p):
        return _vfs_real['stat'](p)
    if _vfs_root(p):
        return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    return tuple(_c('vfs_stat', _fpath(p)))


def _os_statvfs(p):
    _vfs_arg(p)
    if _vfs_foreign(p):
        return _vfs_real['statvfs'](p)
    return tuple(_c('vfs_statvfs'))


def _os_mkdir(p):
    _vfs_arg(p)
    if _vfs_foreign(p):
        return _vfs_real['mkdir'](p)
    if _vfs_root(p):
        raise OSError(17)
    _c('vfs_mkdir', _fpath(p))


def _os_remove(p):
    _vfs_arg(p)
    if _vfs_foreign(p):
        return _vfs_real['remove'](p)
    if _vfs_root(p):
        raise OSError(1)
    _c('vfs_remove', _fpath(p))


def _os_rmdir(p):
    _vfs_arg(p)
    if _vfs_foreign(p):
        return _vfs_real['rmdir'](p)
    if _vfs_root(p):
        raise OSError(1)
    _c('vfs_remove', _fpath(p))


def _os_rename(a, b):
    _vfs_arg(a)
    _vfs_arg(b)
    if _vfs_foreign(a) or _vfs_foreign(b):
        if _vfs_foreign(a) != _vfs_foreign(b):
            raise OSError(1)
        return _vfs_real['rename'](a, b)
    # Across volumes, and the virtual root is one: EPERM.
    if _vfs_root(a) or _vfs_root(b):
        raise OSError(1)
    _c('vfs_rename', _fpath(a), _fpath(b))


def _os_chdir(p):
    _vfs_arg(p)
    if _vfs_foreign(p):
        _vfs_real['chdir'](p)
        _vfs.update(root=False, foreign=True)
        return
    if _vfs['foreign']:
        # Back on the flash: relative paths are the flash's again, for open() and for import.
        _vfs_real['chdir']('/')
        _vfs.update(cwd='/', root=True, foreign=False)
    if _vfs_root(p):
        _vfs.update(cwd='/', root=True)
        return
    s = p if isinstance(p, str) else p.decode()
    if s.startswith('/'):
        cwd = s
    elif len(_vfs['cwd']) > 1 and not _vfs['cwd'].endswith('/'):
        cwd = _vfs['cwd'] + '/' + s
    else:
        cwd = _vfs['cwd'] + s
    if len(cwd) > 1 and cwd.endswith('/'):
        cwd = cwd[:-1]
    _vfs.update(cwd=cwd, root=False)


def _os_getcwd():
    if _vfs['foreign']:
        return _vfs_real['getcwd']()
    return '/' if _vfs['root'] else _vfs['cwd']


def _os_mount(*a, **k):
    if not a and not k:
        return [(obj, point) for point, obj in _vfs_mounts] + [(_VFS_JFS, '/')]
    _vfs_real['mount'](*a, **k)
    _vfs_mounts.insert(0, (a[1] if len(a) > 1 else k.get('mount_point'), a[0] if a else k.get('fsobj')))


def _os_umount(mnt):
    _vfs_real['umount'](mnt)
    for entry in _vfs_mounts:
        if entry[0] == mnt or entry[1] is mnt:
            _vfs_mounts.remove(entry)
            break
    if _vfs['foreign'] and not _vfs_foreign(_vfs_real['getcwd']()):
        # Unmounting the current volume leaves the VFS at the root (vfs.c:307-310).
        _vfs.update(cwd='/', root=True, foreign=False)


class _UnameResult(tuple):
    # An attrtuple: a tuple with named fields, printed with the names (objattrtuple.c).
    _fields = ('sysname', 'nodename', 'release', 'version', 'machine')

    def __repr__(self):
        return '(' + ', '.join(['%s=%r' % (n, v) for n, v in zip(self._fields, self)]) + ')'

    __str__ = __repr__
    sysname = property(lambda self: self[0])
    nodename = property(lambda self: self[1])
    release = property(lambda self: self[2])
    version = property(lambda self: self[3])
    machine = property(lambda self: self[4])


# modos.c:97-121 with mpconfigport.h:425, 463-464 and genhdr/mpversion.h.
_UNAME = _UnameResult((
    'jumperless-rp2350',
    'jumperless-rp2350',
    '1.28.0',
    'v1.28.0-dirty on 2026-06-01',
    'jumperless-v5 with rp2350b',
))


class _JfsVfs:
    # The VFS object mounted at / (mp_type_vfs_jl: printed name jfs, no print slot).
    def __repr__(self):
        return '<jfs>'


_VFS_JFS = _JfsVfs()


def _open(file, mode='r', buffering=-1, encoding=None):
    # mp_vfs_open (vfs.c:320-341): buffering and encoding are parsed, then ignored.
    _int(buffering)
    _vfs_arg(file)
    if _vfs_foreign(file):
        return _vfs_real['open'](file, mode)
    if _vfs_root(file):
        raise OSError(1)
    _fpath(mode)
    m = mode if isinstance(mode, str) else mode.decode()
    # jl_vfs_open_method (modjumperless.c:5501-5534): an empty path is EINVAL, an empty mode 'r'.
    if file == '' or file == b'':
        raise OSError(22)
    return _jfs_open(file, m or 'r')


def _json_load(f):
    # json.load reads a stream through its protocol; the sim's JFSFile (a Python class) cannot offer
    # that without a readinto method the board's lacks, so its bytes are read here and parsed.
    if type(f) is not _JFSFile:
        return _vfs_real['json'].load(f)
    if f._h is None:
        raise OSError(22)
    h = f._h
    parts = []
    while True:
        chunk = _c('jfs_read', h, None)
        if not chunk:
            break
        parts.append(bytes.fromhex(chunk))
    return _vfs_real['json'].loads(b''.join(parts))


def _vfs_install():
    import builtins, io, json, os
    for name in ('ilistdir', 'stat', 'statvfs', 'mkdir', 'remove', 'rmdir', 'rename', 'chdir', 'getcwd', 'mount', 'umount'):
        _vfs_real[name] = getattr(os, name)
    # Assigning builtins.open overrides the name only: the attribute stays the VM's own open.
    _vfs_real['open'] = builtins.open
    _vfs_real['json'] = json
    _vfs.update(cwd='/', root=True, foreign=False)
    del _vfs_mounts[:]
    _sys.modules['os'] = _Module('os', {
        'chdir': _os_chdir,
        'getcwd': _os_getcwd,
        'ilistdir': _os_ilistdir,
        'listdir': _os_listdir,
        'mkdir': _os_mkdir,
        'mount': _os_mount,
        'remove': _os_remove,
        'rename': _os_rename,
        'rmdir': _os_rmdir,
        'sep': '/',
        'stat': _os_stat,
        'statvfs': _os_statvfs,
        'umount': _os_umount,
        'uname': lambda: _UNAME,
        'unlink': _os_remove,
    })
    _sys.modules['json'] = _Module('json', {
        'dump': json.dump,
        'dumps': json.dumps,
        'load': _json_load,
        'loads': json.loads,
    })
    builtins.open = _open
    # io.open is the same open on the board; this build's io takes no new values, so it is wrapped.
    attrs = {}
    for name in dir(io):
        if not name.startswith('_'):
            attrs[name] = getattr(io, name)
    attrs['open'] = _open
    _sys.modules['io'] = _Module('io', attrs)


_BOOT.append(_vfs_install)
