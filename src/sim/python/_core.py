# The bridge between the `jumperless` module and the simulated firmware (src/sim/firmware).
# Every firmware call goes through _c(); names starting with "_" stay out of `from jumperless import *`.
import json as _json
import _fw

_ERRORS = {
    'ValueError': ValueError,
    'TypeError': TypeError,
    'OSError': OSError,
    'NotImplementedError': NotImplementedError,
    'KeyboardInterrupt': KeyboardInterrupt,
    'RuntimeError': RuntimeError,
    'IndexError': IndexError,
    'SystemExit': SystemExit,
}


def _c(name, *args):
    reply = _json.loads(_fw.call(name, _json.dumps(args)))
    if reply[0] == 0:
        return reply[1]
    kind = _ERRORS.get(reply[1], RuntimeError)
    if reply[1] == 'OSError' and reply[3] is not None:
        raise OSError(reply[3])
    if reply[2]:
        raise kind(reply[2])
    raise kind


class _Ordered:
    # Values with an integer identity (Node, ProbePad) compare with ints and with their own kind;
    # each subclass says which operands it accepts in _other() (None: not comparable).
    def __eq__(self, o):
        v = self._other(o)
        return NotImplemented if v is None else self._v == v

    def __ne__(self, o):
        v = self._other(o)
        return NotImplemented if v is None else self._v != v

    def __lt__(self, o):
        v = self._other(o)
        return _unsupported('__lt__', self, o) if v is None else self._v < v

    def __le__(self, o):
        v = self._other(o)
        return _unsupported('__le__', self, o) if v is None else self._v <= v

    def __gt__(self, o):
        v = self._other(o)
        return _unsupported('__gt__', self, o) if v is None else self._v > v

    def __ge__(self, o):
        v = self._other(o)
        return _unsupported('__ge__', self, o) if v is None else self._v >= v
