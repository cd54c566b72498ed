# DAC and rail setpoints (spec 6.5): dac_set / dac_get and their aliases.

_DAC_ERR = 'Invalid DAC channel or node. Use 0-3, DAC0, DAC1, TOP_RAIL, or BOTTOM_RAIL'


def _dac_channel(x):
    # map_node_to_dac_channel: DAC0, DAC1, TOP_RAIL, BOTTOM_RAIL, or a channel number 0-3.
    v = _node(x)
    ch = {106: 0, 107: 1, 101: 2, 102: 3}.get(v, v if 0 <= v <= 3 else -1)
    if ch < 0:
        raise ValueError(_DAC_ERR)
    return ch


@_native
def dac_set(*a, **k):
    _sig(a, k, 2, 3)
    ch = _dac_channel(a[0])
    volts = _flt(a[1])
    save = bool(a[2]) if len(a) > 2 else True
    _c('dac_set', ch, _jf(volts), save)


@_native
def dac_get(*a, **k):
    _sig(a, k, 1, 1)
    return _pf(_c('dac_get', _dac_channel(a[0])))


set_dac = dac_set
get_dac = dac_get
