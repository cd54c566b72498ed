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
