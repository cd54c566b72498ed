# The flash filesystem: the `jfs` module (modjumperless.c:5379-5416, also importable as `jfs`), its
# JFSFile (4680-5107) and the fs_* helpers (4602-4672). vfs.py builds `os` and open() on top.
# Paths go to the firmware as a str or, for bytes, as [hex]; file data and names that must be
# decoded come back as hex, so a bad UTF-8 text raises UnicodeError here as mp_obj_new_str does.
import sys as _sys
import io as _io


def _fpath(x):
    # mp_obj_str_get_str: a str, or bytes that reach FatFS byte for byte.
    if isinstance(x, str):
        return x
    if isinstance(x, bytes):
        return [x.hex()]
    raise TypeError("can't convert '%s' object to str implicitly" % type(x).__name__)


def _cstr(x):
    # mp_obj_str_get_str then strlen: the bytes of a str or bytes, up to the first NUL.
    _fpath(x)
    b = x.encode() if isinstance(x, str) else x
    i = b.find(b'\x00')
    return b if i < 0 else b[:i]


def _buffer(x):
    # mp_get_buffer_raise: any object with the buffer protocol, str included.
    if isinstance(x, str):
        return x.encode()
    if isinstance(x, (bytes, bytearray, memoryview)):
        return bytes(x)
    try:
        return bytes(memoryview(x))
    except TypeError:
        raise TypeError('object with buffer protocol required')


def _listing(names):
    # A listing the firmware could not turn into str objects (a name that is not UTF-8).
    if names is None:
        raise UnicodeError
    return names


class _StreamProbe(_io.IOBase):
    # print(..., file=f) and json.dump(x, f) reach JFSFile.write through io.IOBase with a bytearray
    # built on the C stack (modio.c), which the board's native stream takes in any mode. A script's
    # own bytearray is on the heap, which this build places above the C stack and the static
    # objects: id() tells the two apart. Checked once here; if the layout differs, all pass.
    at = None

    def write(self, b):
        _StreamProbe.at = id(b)
        return len(b)


print('.', end='', file=_StreamProbe())
_STACK_BELOW = id(len) if _StreamProbe.at is not None and _StreamProbe.at < id(len) else None
del _StreamProbe


def _from_stream(d):
    return type(d) is bytearray and (_STACK_BELOW is None or id(d) < _STACK_BELOW)


class JFSFile(_io.IOBase):
    # A file from jfs.open() or open(). The board's type has only these methods (no readline,
    # readinto or iteration) and is a stream for print(file=)/json (see _StreamProbe, vfs.py).

    def __init__(self, handle, binary, name):
        self._h = handle
        self._b = binary
        self._n = name

    def _open(self):
        if self._h is None:
            raise ValueError('I/O operation on closed file')
        return self._h

    def read(self, *a, **k):
        _sig((self,) + a, k, 1, 2)
        h = self._open()
        data = bytes.fromhex(_c('jfs_read', h, _int(a[0]) if a else None))
        return data if self._b else data.decode()

    def write(self, data):
        if self._h is None and _from_stream(data):
            # The stream protocol's own check (jfs_file_stream_write): EINVAL, not ValueError.
            raise OSError(22)
        h = self._open()
        if self._b:
            b = _buffer(data)
        elif isinstance(data, (str, bytes)) or _from_stream(data):
            b = _buffer(data)
        else:
            raise TypeError("can't convert '%s' object to str implicitly" % type(data).__name__)
        return _c('jfs_write', h, b.hex())

    def print(self, *args):
        h = self._open()
        if self._b:
            raise ValueError('print not supported on binary file')
        return _c('jfs_write', h, (' '.join([str(x) for x in args]) + '\n').encode().hex())

    def seek(self, *a, **k):
        _sig((self,) + a, k, 2, 3)
        h = self._open()
        # The method flushes first (modjumperless.c:4839-4841); jfs.seek does not.
        _c('jfs_flush', h)
        return _c('jfs_seek', h, _int(a[0]), _int(a[1]) if len(a) > 1 else 0)

    def tell(self):
        return _c('jfs_tell', self._open())

    position = tell

    def size(self):
        return _c('jfs_size', self._open())

    def available(self):
        return _c('jfs_available', self._h)

    def name(self):
        # The path as given to open (at most 255 bytes), None once closed.
        if self._h is None:
            return None
        return self._n.decode() if isinstance(self._n, bytes) else self._n

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

    def __repr__(self):
        return '<JFSFile>'


_JFSFile = JFSFile
del JFSFile


def _jfs_open(path, mode):
    # What jfs.open and the VFS's open share: the handle, binary when 'b' is in the mode.
    name = path[:255] if isinstance(path, (str, bytes)) else path
    return _JFSFile(_c('jfs_open', _fpath(path), mode), 'b' in mode, name)


def _jfs_file(f):
    # The C functions cast any object blindly; here anything but a JFSFile is refused.
    if type(f) is not _JFSFile:
        raise TypeError("expected a JFSFile, got '%s'" % type(f).__name__)
    return f


class module:
    # A built-in module as the board has it: attributes, printed as <module 'name'>.
    def __init__(self, name, attrs):
        self.__name__ = name
        for key in attrs:
            setattr(self, key, attrs[key])

    def __repr__(self):
        return "<module '%s'>" % self.__name__


_Module = module
del module


def _jfs_m_open(*a, **k):
    _sig(a, k, 1, 2)
    mode = a[1] if len(a) > 1 else 'r'
    _fpath(mode)
    return _jfs_open(a[0], mode if isinstance(mode, str) else mode.decode())


def _jfs_m_read(*a, **k):
    # Always a str, even for a 'b' handle.
    _sig(a, k, 1, 2)
    h = _jfs_file(a[0])._open()
    return bytes.fromhex(_c('jfs_read_str', h, _int(a[1]) if len(a) > 1 else 1024)).decode()


def _jfs_m_write(f, data):
    # Returns None; the data is cut at its first NUL (strlen).
    _c('jfs_write', _jfs_file(f)._open(), _cstr(data).hex())


def _jfs_m_close(f):
    _jfs_file(f).close()


def _jfs_m_seek(*a, **k):
    _sig(a, k, 2, 3)
    h = _jfs_file(a[0])._open()
    return _c('jfs_seek', h, _int(a[1]), _int(a[2]) if len(a) > 2 else 0)


jfs = _Module('jfs', {
    'open': _jfs_m_open,
    'read': _jfs_m_read,
    'write': _jfs_m_write,
    'close': _jfs_m_close,
    'seek': _jfs_m_seek,
    'tell': lambda f: _jfs_file(f).tell(),
    'size': lambda f: _jfs_file(f).size(),
    'available': lambda f: _jfs_file(f).available(),
    'exists': lambda p: _c('jfs_exists', _fpath(p)),
    'listdir': lambda p: _listing(_c('jfs_listdir', _fpath(p))),
    'mkdir': lambda p: _c('jfs_mkdir', _fpath(p)),
    'rmdir': lambda p: _c('jfs_rmdir', _fpath(p)),
    'remove': lambda p: _c('jfs_remove', _fpath(p)),
    'rename': lambda a, b: _c('jfs_rename', _fpath(a), _fpath(b)),
    'stat': lambda p: tuple(_c('jfs_stat', _fpath(p))),
    'info': lambda: tuple(_c('jfs_info')),
    'SEEK_SET': 0,
    'SEEK_CUR': 1,
    'SEEK_END': 2,
})
_sys.modules['jfs'] = jfs


def fs_exists(*a, **k):
    _sig(a, k, 1, 1)
    return _c('fs_exists', _fpath(a[0]))


def fs_listdir(*a, **k):
    _sig(a, k, 1, 1)
    return _listing(_c('fs_listdir', _fpath(a[0])))


def fs_read(*a, **k):
    # At most 4095 bytes, up to a NUL; None when the file cannot be opened.
    _sig(a, k, 1, 1)
    data = _c('fs_read', _fpath(a[0]))
    return None if data is None else bytes.fromhex(data).decode()


def fs_write(*a, **k):
    _sig(a, k, 2, 2)
    return _c('fs_write', _fpath(a[0]), _cstr(a[1]).hex())


def fs_cwd(*a, **k):
    _sig(a, k, 0, 0)
    return _c('fs_cwd')


# A fresh VM (boot or soft reset) starts with no open jfs files, as jl_soft_reboot closes them.
_c('_jfs_close_all')
