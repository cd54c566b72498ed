# ADC and INA readings (spec 6.6). adc_get takes channels 0-3, as firmware 5.7.0.13 does.

@_native
def adc_get(*a, **k):
    _sig(a, k, 1, 1)
    ch = _int(a[0])
    if ch < 0 or ch > 3:
        raise ValueError('ADC channel must be 0-3')
    return _pf(_c('adc_get', ch))


get_adc = adc_get


def _ina(name, a, k):
    _sig(a, k, 1, 1)
    s = _int(a[0])
    if s < 0 or s > 1:
        raise ValueError('INA sensor must be 0 or 1')
    return _pf(_c(name, s))


@_native
def ina_get_current(*a, **k):
    return _ina('ina_get_current', a, k)


@_native
def ina_get_voltage(*a, **k):
    # The bus voltage, as the firmware returns (the docs say shunt voltage).
    return _ina('ina_get_voltage', a, k)


@_native
def ina_get_bus_voltage(*a, **k):
    return _ina('ina_get_bus_voltage', a, k)


@_native
def ina_get_power(*a, **k):
    return _ina('ina_get_power', a, k)


get_ina_current = get_current = ina_get_current
get_ina_voltage = get_voltage = ina_get_voltage
get_ina_bus_voltage = get_bus_voltage = ina_get_bus_voltage
get_ina_power = get_power = ina_get_power
