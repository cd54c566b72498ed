# The passive net-current scan of 5.7.11 (modjumperless.c@796c56c, "Net Current Scan API"): node
# volts and path currents the background scan measured, without routing an ADC or adding a bridge.
# Each answers None when the scan has no fresh value.


@_native
def get_node_voltage(*a, **k):
    _sig(a, k, 1, 1)
    v = _c('get_node_voltage', _node(a[0]))
    return None if v is None else _pf(v)


@_native
def get_net_current(*a, **k):
    _sig(a, k, 1, 1)
    d = _c('get_net_current', _int(a[0]))
    if d is None:
        return None
    return {'current_mA': _pf(d[0]), 'voltage': _pf(d[1]), 'from_node': d[2], 'to_node': d[3]}


@_native
def get_path_current(*a, **k):
    _sig(a, k, 1, 1)
    v = _c('get_path_current', _int(a[0]))
    return None if v is None else _pf(v)


node_voltage = get_node_voltage
net_current = get_net_current
path_current = get_path_current
