/**
 * PWM on GPIO_1..8 (spec §6.7), after the firmware's Peripherals.cpp. The Python side checks the
 * module's ranges (frequency 0.0009..62.5 MHz, duty 0..1); the rest is the backend's:
 *
 * - below 0.01 Hz setupPWM refuses (`PWM setup failed`, Peripherals.cpp:2775);
 * - below 10 Hz a 1 ms timer writes the SIO output latch ("slow PWM", Peripherals.cpp:2609-2671):
 *   the pad becomes an SIO output (the config direction is left alone) and the stop makes it an
 *   input; while it runs, a frequency change above 10 Hz fails (Peripherals.cpp:2716);
 * - from 10 Hz the pad switches to the PWM function; clock divider and wrap belong to the slice,
 *   which GPIO_1/2, 3/4, 5/6 and 7/8 share (GP20/21 ... GP26/27): starting one pin retunes its
 *   partner (whose level count stays, so its duty changes too), and stopping one disables the slice
 *   under both. The SIO direction is never touched (Peripherals.cpp:2768-2827, 2894-2928).
 *
 * `hw.gpio[i].pwm` is set only while the pad is in the PWM function (get_state's `function`);
 * `hw.gpio[i].slowPwm` while the slow timer runs.
 */
import { asInt, asNum } from './args.js';
import { type GpioPin, type Hardware, syncGpioRefresh, touch } from './hardware.js';
import { type FirmwareFunctions, PyError } from './types.js';

const SLOW_BELOW_HZ = 10;
const MIN_SETUP_HZ = 0.01;
const MAX_HZ = 62_500_000;
/** setupSlowPWM's own range (Peripherals.cpp:2616, 2716). */
const SLOW_MIN_HZ = 0.001;
const SLOW_MAX_HZ = 10;
/** setupPWM assumes a 150 MHz system clock (Peripherals.cpp:2792). */
const CLOCK_HZ = 150_000_000;

/** Output level (0/1) of a hardware PWM at `nowMs`. */
function hardwareLevel(pin: GpioPin, nowMs: number): number {
  const p = pin.pwm;
  if (!p) return 0;
  if (p.frozen !== undefined) return p.frozen;
  const phase = (((((nowMs - p.startedAt) / 1000) * p.freq) % 1) + 1) % 1;
  return phase < p.duty ? 1 : 0;
}

/**
 * What the pad drives when it is an output: the PWM block when the pad is in the PWM function
 * (its average when too fast to follow, >= 1 kHz), else the SIO latch, which the slow-PWM timer
 * rewrites every millisecond (slowPWMTimerCallback, Peripherals.cpp:2587-2605).
 */
export function pwmLevel(pin: GpioPin, nowMs: number): number {
  const p = pin.pwm;
  if (p) return p.frozen === undefined && p.freq >= 1000 ? p.duty : hardwareLevel(pin, nowMs);
  const s = pin.slowPwm;
  if (!s) return pin.level;
  const ticks = Math.floor(nowMs - s.startedAt);
  if (ticks < 1) return 0;
  return ticks % s.periodMs < s.dutyMs ? 1 : 0;
}

/** True while some pin's output changes with time slowly enough for a reading to see it. */
export function pwmIsTimeVarying(pin: GpioPin): boolean {
  return pin.slowPwm !== null || (pin.pwm !== null && pin.pwm.frozen === undefined && pin.pwm.freq < 1000);
}

interface Slice {
  enabled: boolean;
  divider: number;
  wrap: number;
}

const f32 = Math.fround;

/** setupPWM's divider and wrap for a frequency, in the firmware's single precision. */
function dividerAndWrap(freq: number): { divider: number; wrap: number } {
  const divider = Math.min(255, Math.trunc(f32(CLOCK_HZ / f32(freq * 65536))) + 1);
  const wrap = Math.min(65535, Math.trunc(f32(CLOCK_HZ / f32(freq * divider))) - 1);
  return { divider, wrap };
}

export function pwmGroup(hw: Hardware): FirmwareFunctions {
  /** The channel's level count (pwm_set_gpio_level). */
  const levelCount = new Array<number>(8).fill(0);
  const slices: Slice[] = Array.from({ length: 4 }, () => ({ enabled: false, divider: 1, wrap: 0 }));

  const pinAt = (i: number): GpioPin => hw.gpio[i] as GpioPin;
  const sliceOf = (i: number): Slice => slices[i >> 1] as Slice;

  /** Recomputes what pin `i`'s pad puts out from its slice, when the pad is in the PWM function. */
  const refreshOutput = (i: number, restart: boolean): void => {
    const pin = pinAt(i);
    if (!pin.pwm) return;
    const slice = sliceOf(i);
    const freq = CLOCK_HZ / (slice.divider * (slice.wrap + 1));
    const duty = Math.min(1, (levelCount[i] ?? 0) / (slice.wrap + 1));
    const now = hw.now();
    if (!slice.enabled) {
      // A disabled slice stops counting: the output holds the level it had.
      if (pin.pwm.frozen === undefined) pin.pwm = { ...pin.pwm, frozen: hardwareLevel(pin, now) ? 1 : 0 };
      return;
    }
    const startedAt =
      !restart && pin.pwm.freq === freq && pin.pwm.frozen === undefined ? pin.pwm.startedAt : now;
    pin.pwm = { freq, duty, startedAt };
  };

  const startHardware = (i: number, freq: number, duty: number): void => {
    const pin = pinAt(i);
    const slice = sliceOf(i);
    const { divider, wrap } = dividerAndWrap(freq);
    slice.divider = divider;
    slice.wrap = wrap;
    slice.enabled = true;
    levelCount[i] = Math.trunc(f32(duty * (wrap + 1)));
    if (!pin.pwm) pin.pwm = { freq: 0, duty: 0, startedAt: hw.now() };
    refreshOutput(i, false);
    refreshOutput(i ^ 1, false);
    pin.pwmFreq = freq;
    pin.pwmDuty = duty;
    pin.pwmEnabled = true;
  };

  const startSlow = (i: number, freq: number, duty: number): boolean => {
    if (freq < SLOW_MIN_HZ || freq > SLOW_MAX_HZ) return false;
    const pin = pinAt(i);
    // setupSlowPWM: SIO function, output, latch low, then the timer (Peripherals.cpp:2634-2652).
    pin.pwm = null;
    pin.padDirection = 0;
    pin.level = 0;
    const periodMs = Math.trunc(f32(1000 / freq));
    pin.slowPwm = { periodMs, dutyMs: Math.trunc(f32(periodMs * duty)), startedAt: hw.now() };
    pin.pwmFreq = freq;
    pin.pwmDuty = duty;
    pin.pwmEnabled = false;
    return true;
  };

  /** setupPWM: false where the firmware returns an error code. */
  const setup = (i: number, freq: number, duty: number): boolean => {
    if (!(freq >= MIN_SETUP_HZ && freq <= MAX_HZ) || !(duty >= 0 && duty <= 1)) return false;
    if (freq < SLOW_BELOW_HZ) return startSlow(i, freq, duty);
    startHardware(i, freq, duty);
    return true;
  };

  const stop = (i: number): void => {
    const pin = pinAt(i);
    if (pin.slowPwm) {
      // stopSlowPWM: latch low, SIO, input (Peripherals.cpp:2746-2759).
      pin.slowPwm = null;
      pin.pwm = null;
      pin.level = 0;
      pin.gpioState = 0;
      pin.padDirection = pin.direction === 1 ? null : 1;
      pin.pwmEnabled = false;
      return;
    }
    // stopPWM: the whole slice stops, the pad goes back to SIO with its latch low; the SIO
    // direction stays what it was (Peripherals.cpp:2910-2922).
    sliceOf(i).enabled = false;
    refreshOutput(i ^ 1, false);
    pin.pwm = null;
    pin.level = 0;
    pin.gpioState = 0;
    pin.pwmEnabled = false;
  };

  const indexOf = (x: unknown): number => {
    syncGpioRefresh(hw);
    const p = asInt(x as number);
    if (p < 1 || p > 8) throw new PyError('ValueError', 'GPIO pin must be 1-8 or GPIO_1-GPIO_8');
    return p - 1;
  };
  const done = (ok: boolean, failure: string): null => {
    touch(hw);
    if (!ok) throw new PyError('ValueError', failure);
    return null;
  };

  return {
    pwm: (p, freq = 1, duty = 0.5) => done(setup(indexOf(p), asNum(freq), asNum(duty)), 'PWM setup failed'),
    pwm_set_duty_cycle: (p, d) => {
      const i = indexOf(p);
      const pin = pinAt(i);
      const duty = asNum(d);
      if (!(duty >= 0 && duty <= 1)) return done(false, 'PWM duty cycle set failed');
      if (pin.slowPwm) {
        // setSlowPWMDutyCycle keeps the period and the phase.
        pin.slowPwm = { ...pin.slowPwm, dutyMs: Math.trunc(f32(pin.slowPwm.periodMs * duty)) };
        pin.pwmDuty = duty;
        return done(true, '');
      }
      const freq = !pin.pwmEnabled && pin.pwmFreq < MIN_SETUP_HZ ? 1000 : pin.pwmFreq;
      return done(setup(i, freq, duty), 'PWM duty cycle set failed');
    },
    pwm_set_frequency: (p, f) => {
      const i = indexOf(p);
      const pin = pinAt(i);
      const freq = asNum(f);
      if (!(freq >= MIN_SETUP_HZ && freq <= MAX_HZ)) return done(false, 'PWM frequency set failed');
      if (pin.slowPwm) return done(startSlow(i, freq, pin.pwmDuty), 'PWM frequency set failed');
      const duty = pin.pwmDuty < 0 || pin.pwmDuty > 1 ? 0.5 : pin.pwmDuty;
      return done(setup(i, freq, duty), 'PWM frequency set failed');
    },
    pwm_stop: (p) => {
      stop(indexOf(p));
      return done(true, '');
    },
  };
}
