# PWM on GPIO_1..8 (spec 6.7). The firmware default frequency is 1 Hz (the docs say 1000).

def _pwm_pin(p):
    if 131 <= p <= 138:
        p -= 130
    if p < 1 or p > 8:
        raise ValueError('GPIO pin must be 1-8 or GPIO_1-GPIO_8')
    return p


def _pwm_freq(f):
    if f < 0.0009 or f > 62500000.0:
        raise ValueError('PWM frequency must be 0.001Hz to 62.5MHz')


def _pwm_duty(d):
    if d < 0.0 or d > 1.0:
        raise ValueError('PWM duty cycle must be 0.0 to 1.0')


@_native
def pwm(*a, **k):
    _sig(a, k, 1, 3)
    p = _int(a[0])
    f = _flt(a[1]) if len(a) > 1 else 1.0
    d = _flt(a[2]) if len(a) > 2 else 0.5
    p = _pwm_pin(p)
    _pwm_freq(f)
    _pwm_duty(d)
    _c('pwm', p, _jf(f), _jf(d))


@_native
def pwm_set_duty_cycle(*a, **k):
    _sig(a, k, 2, 2)
    p = _int(a[0])
    d = _flt(a[1])
    p = _pwm_pin(p)
    _pwm_duty(d)
    _c('pwm_set_duty_cycle', p, _jf(d))


@_native
def pwm_set_frequency(*a, **k):
    _sig(a, k, 2, 2)
    p = _int(a[0])
    f = _flt(a[1])
    p = _pwm_pin(p)
    _pwm_freq(f)
    _c('pwm_set_frequency', p, _jf(f))


@_native
def pwm_stop(*a, **k):
    _sig(a, k, 1, 1)
    _c('pwm_stop', _pwm_pin(_int(a[0])))


set_pwm = pwm
set_pwm_duty_cycle = pwm_set_duty_cycle
set_pwm_frequency = pwm_set_frequency
stop_pwm = pwm_stop
