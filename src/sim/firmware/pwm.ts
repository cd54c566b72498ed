/**
 * PWM on GPIO_1..8 (spec §6.7), after the firmware's setupPWM: the Python side checks the ranges
 * of the module (frequency 0.0009..62.5 MHz), and the setup code refuses below 0.01 Hz, which is
 * where `PWM setup failed` comes from. Below 10 Hz the firmware uses a timer ("slow PWM"), whose
 * stop leaves the pin an input; a hardware PWM stop leaves it driving LOW.
 */
import { asInt, asNum } from './args.js';
import { type GpioPin, type Hardware, touch } from './hardware.js';
import { type FirmwareFunctions, PyError } from './types.js';

const SLOW_BELOW_HZ = 10;
const MIN_SETUP_HZ = 0.01;
const MAX_HZ = 62_500_000;

/** The PWM output level (0/1) at `nowMs`, or its average when it is too fast to follow (>= 1 kHz). */
export function pwmLevel(pin: GpioPin, nowMs: number): number {
  const p = pin.pwm;
  if (!p) return pin.level;
  if (p.freq >= 1000) return p.duty;
  const phase = (((((nowMs - p.startedAt) / 1000) * p.freq) % 1) + 1) % 1;
  return phase < p.duty ? 1 : 0;
}

export function pwmGroup(hw: Hardware): FirmwareFunctions {
  const pinOf = (x: unknown): GpioPin => {
    const p = asInt(x as number);
    const pin = p >= 1 && p <= 8 ? hw.gpio[p - 1] : undefined;
    if (!pin) throw new PyError('ValueError', 'GPIO pin must be 1-8 or GPIO_1-GPIO_8');
    return pin;
  };
  const setup = (pin: GpioPin, freq: number, duty: number, failure: string): null => {
    if (!(freq >= MIN_SETUP_HZ && freq <= MAX_HZ) || !(duty >= 0 && duty <= 1)) {
      throw new PyError('ValueError', failure);
    }
    const startedAt = pin.pwm?.freq === freq ? pin.pwm.startedAt : hw.now();
    pin.pwm = { freq, duty, startedAt };
    pin.pwmFreq = freq;
    pin.pwmDuty = duty;
    touch(hw);
    return null;
  };
  return {
    pwm: (p, freq = 1, duty = 0.5) => setup(pinOf(p), asNum(freq), asNum(duty), 'PWM setup failed'),
    pwm_set_duty_cycle: (p, duty) => {
      const pin = pinOf(p);
      // Not running: start with the last frequency, or 1 kHz (slow PWM restarts at 1 Hz).
      const freq = pin.pwm?.freq ?? (pin.pwmFreq < 0.01 ? 1000 : pin.pwmFreq);
      return setup(pin, freq, asNum(duty), 'PWM duty cycle set failed');
    },
    pwm_set_frequency: (p, freq) => {
      const pin = pinOf(p);
      const duty = pin.pwm?.duty ?? (pin.pwmDuty < 0 || pin.pwmDuty > 1 ? 0.5 : pin.pwmDuty);
      return setup(pin, asNum(freq), duty, 'PWM frequency set failed');
    },
    pwm_stop: (p) => {
      const pin = pinOf(p);
      if (pin.pwm && pin.pwm.freq < SLOW_BELOW_HZ) pin.direction = 1;
      else if (pin.pwm) pin.direction = 0;
      pin.pwm = null;
      pin.level = 0;
      touch(hw);
      return null;
    },
  };
}
