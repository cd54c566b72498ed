# The flash filesystem (spec 6.13): `jfs` (also importable as a module) with JFSFile objects, and the
# module-level fs_* helpers. Files live on the VM's own filesystem, so open() and os see them too.
import sys as _sys


class JFSFile:
    # A file opened by jfs.open(); operations on a closed file raise ValueError.

    def __init__(self, handle, binary):
        self._h = handle
        self._b = binary

    def _open(self):
        # The firmware side also refuses handles it closed itself (after a `>` line, a soft reset).
        if self._h is None:
            raise ValueError('I/O operation on closed file')
        return self._h

    def read(self, *a):
        if len(a) > 1:
            raise TypeError('function expected at most 2 arguments, got %d' % (len(a) + 1))
        data = _c('jfs_read', self._open(), _int(a[0]) if a else None)
        return bytes(data) if self._b else data

    def write(self, data):
        if not self._b and not isinstance(data, (str, bytes, bytearray)):
            data = _str_arg(data)
        return _c('jfs_write', self._open(), _buf_arg(data))

    def print(self, *args):
        h = self._open()
        if self._b:
            raise ValueError('print not supported on binary file')
        return _c('jfs_write', h, _buf_arg(' '.join([str(x) for x in args]) + '\n'))

    def seek(self, *a):
        if not 1 <= len(a) <= 2:
            raise TypeError('function takes 2 or 3 positional arguments')
        return _c('jfs_seek', self._open(), _int(a[0]), _int(a[1]) if len(a) > 1 else 0)

    def tell(self):
        return _c('jfs_tell', self._open())

    position = tell

    def size(self):
        return _c('jfs_size', self._open())

    def available(self):
        return _c('jfs_available', self._h)

    def name(self):
        return _c('jfs_name', self._h)

    def flush(self):
        _c('jfs_flush', self._open())

    def close(self):
        if self._h is not None:
            _c('jfs_close', self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _jfs_file(f):
    if type(f) is not _JFSFile:
        raise TypeError("expected a JFSFile, got '%s'" % type(f).__name__)
    return f


class _JfsModule:
    # Stands in for the firmware's `jfs` module: functions, the file type and SEEK_* constants.
    SEEK_SET = 0
    SEEK_CUR = 1
    SEEK_END = 2
    JFSFile = JFSFile

    def __repr__(self):
        return "<module 'jfs'>"

    @staticmethod
    def open(*a, **k):
        _sig(a, k, 1, 2)
        path = _str_arg(a[0])
        mode = _str_arg(a[1]) if len(a) > 1 else 'r'
        return _JFSFile(_c('jfs_open', path, mode), 'b' in mode)

    @staticmethod
    def read(*a, **k):
        _sig(a, k, 1, 2)
        return _c('jfs_read_str', _jfs_file(a[0])._open(), _int(a[1]) if len(a) > 1 else 1024)

    @staticmethod
    def write(*a, **k):
        _sig(a, k, 2, 2)
        _c('jfs_write', _jfs_file(a[0])._open(), _buf_arg(_str_arg(a[1])))

    @staticmethod
    def close(*a, **k):
        _sig(a, k, 1, 1)
        _jfs_file(a[0]).close()

    @staticmethod
    def seek(*a, **k):
        _sig(a, k, 2, 3)
        h = _jfs_file(a[0])._open()
        return _c('jfs_seek', h, _int(a[1]), _int(a[2]) if len(a) > 2 else 0)

    @staticmethod
    def tell(*a, **k):
        _sig(a, k, 1, 1)
        return _jfs_file(a[0]).tell()

    @staticmethod
    def size(*a, **k):
        _sig(a, k, 1, 1)
        return _jfs_file(a[0]).size()

    @staticmethod
    def available(*a, **k):
        _sig(a, k, 1, 1)
        return _jfs_file(a[0]).available()

    @staticmethod
    def exists(*a, **k):
        _sig(a, k, 1, 1)
        return _c('jfs_exists', _str_arg(a[0]))

    @staticmethod
    def listdir(*a, **k):
        _sig(a, k, 1, 1)
        return _c('jfs_listdir', _str_arg(a[0]))

    @staticmethod
    def mkdir(*a, **k):
        _sig(a, k, 1, 1)
        _c('jfs_mkdir', _str_arg(a[0]))

    @staticmethod
    def rmdir(*a, **k):
        _sig(a, k, 1, 1)
        _c('jfs_rmdir', _str_arg(a[0]))

    @staticmethod
    def remove(*a, **k):
        _sig(a, k, 1, 1)
        _c('jfs_remove', _str_arg(a[0]))

    @staticmethod
    def rename(*a, **k):
        _sig(a, k, 2, 2)
        _c('jfs_rename', _str_arg(a[0]), _str_arg(a[1]))

    @staticmethod
    def stat(*a, **k):
        _sig(a, k, 1, 1)
        return tuple(_c('jfs_stat', _str_arg(a[0])))

    @staticmethod
    def info(*a, **k):
        _sig(a, k, 0, 0)
        return tuple(_c('jfs_info'))


jfs = _JfsModule()
_sys.modules['jfs'] = jfs
_JFSFile = JFSFile
del JFSFile


def fs_exists(*a, **k):
    _sig(a, k, 1, 1)
    return _c('fs_exists', _str_arg(a[0]))


def fs_listdir(*a, **k):
    _sig(a, k, 1, 1)
    return _c('fs_listdir', _str_arg(a[0]))


def fs_read(*a, **k):
    _sig(a, k, 1, 1)
    return _c('fs_read', _str_arg(a[0]))


def fs_write(*a, **k):
    _sig(a, k, 2, 2)
    return _c('fs_write', _str_arg(a[0]), _str_arg(a[1]))


def fs_cwd(*a, **k):
    _sig(a, k, 0, 0)
    return _c('fs_cwd')


# A fresh VM (boot or soft reset) starts with no open jfs files, as jl_soft_reboot closes them.
_c('_jfs_close_all')
