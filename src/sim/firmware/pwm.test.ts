import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/support/firmwareEnv.js';
import { pwmLevel } from './pwm.js';

describe('pwm group (spec §6.7)', () => {
  it('runs below 10 Hz as a timer on an SIO output: pwm stays null, the pad direction is OUTPUT', () => {
    const b = testBoard();
    b.call('pwm', 1, 2, 0.25);
    const pin = b.hardware.gpio[0];
    expect(pin?.pwm).toBeNull();
    expect(pin?.slowPwm).toMatchObject({ periodMs: 500, dutyMs: 125 });
    expect(b.call('gpio_get_dir', 1)).toBe(0);
    expect(pin?.direction).toBe(1);
    expect(pin && pwmLevel(pin, 10)).toBe(1);
    expect(pin && pwmLevel(pin, 200)).toBe(0);
    b.call('pwm_stop', 1);
    expect(pin?.slowPwm).toBeNull();
    expect(b.call('gpio_get_dir', 1)).toBe(1);
  });

  it('runs from 10 Hz in the PWM function and leaves the SIO direction alone', () => {
    const b = testBoard();
    b.call('pwm', 1, 1000, 0.25);
    expect(b.hardware.gpio[0]?.pwm).toMatchObject({ freq: 1000, duty: 0.25 });
    expect(b.call('gpio_get_dir', 1)).toBe(1);
    b.call('pwm_stop', 1);
    expect(b.hardware.gpio[0]).toMatchObject({ pwm: null, level: 0, direction: 1 });
    expect(b.call('gpio_get_dir', 1)).toBe(1);
  });

  it('defaults to 1 Hz and 50 %', () => {
    const b = testBoard();
    b.call('pwm', 3);
    expect(b.hardware.gpio[2]?.slowPwm).toMatchObject({ periodMs: 1000, dutyMs: 500 });
  });

  it('reports below 0.01 Hz as a setup failure (the module range starts at 0.0009)', () => {
    const b = testBoard();
    expect(b.call('pwm', 1, 0.005, 0.5)).toEqual({ error: 'ValueError: PWM setup failed' });
    expect(b.call('pwm_set_frequency', 1, 0.005)).toEqual({ error: 'ValueError: PWM frequency set failed' });
  });

  it('refuses to move a running slow PWM above 10 Hz, but changes its duty', () => {
    const b = testBoard();
    b.call('pwm', 1, 2, 0.5);
    expect(b.call('pwm_set_frequency', 1, 1000)).toEqual({ error: 'ValueError: PWM frequency set failed' });
    expect(b.call('pwm_set_duty_cycle', 1, 0.75)).toBeNull();
    expect(b.hardware.gpio[0]?.slowPwm).toMatchObject({ periodMs: 500, dutyMs: 375 });
  });

  it('starts a stopped pin on a duty change at the last frequency, else 1 kHz', () => {
    const b = testBoard();
    b.call('pwm_set_duty_cycle', 3, 0.1);
    expect(b.hardware.gpio[2]?.pwm).toMatchObject({ freq: 1000, duty: 0.1 });
    b.call('pwm_set_frequency', 3, 50);
    b.call('pwm_stop', 3);
    expect(b.hardware.gpio[2]?.pwm).toBeNull();
    b.call('pwm_set_duty_cycle', 3, 0.3);
    expect(b.hardware.gpio[2]?.pwm?.freq).toBeCloseTo(50, 3);
    expect(b.hardware.gpio[2]?.pwm?.duty).toBeCloseTo(0.3, 4);
  });

  it('shares the slice between pins 1 and 2: retuning one moves the other, stopping one freezes both', () => {
    const b = testBoard();
    b.call('pwm', 1, 100, 0.5);
    b.call('pwm', 2, 1000, 0.5);
    const [one, two] = b.hardware.gpio;
    expect(one?.pwm?.freq).toBeCloseTo(1000, 3);
    // Pin 1 keeps its level count (half of the 100 Hz wrap), which is more than the new wrap.
    expect(one?.pwm?.duty).toBeCloseTo(32608 / 50000, 4);
    expect(two?.pwm).toMatchObject({ freq: 1000, duty: 0.5 });
    b.call('pwm_stop', 2);
    expect(two?.pwm).toBeNull();
    expect(one?.pwm?.frozen).toBeDefined();
    // Starting pin 1 again re-enables the slice.
    b.call('pwm_set_duty_cycle', 1, 0.25);
    expect(one?.pwm?.freq).toBeCloseTo(100, 2);
    expect(one?.pwm?.duty).toBeCloseTo(0.25, 4);
    expect(one?.pwm?.frozen).toBeUndefined();
  });

  it('stops the slice from an idle partner too; other pairs are independent', () => {
    const b = testBoard();
    b.call('pwm', 3, 500, 0.5);
    b.call('pwm', 5, 500, 0.5);
    b.call('pwm_stop', 4);
    expect(b.hardware.gpio[2]?.pwm?.frozen).toBeDefined();
    expect(b.hardware.gpio[4]?.pwm?.frozen).toBeUndefined();
  });

  it('refuses pins outside 1-8', () => {
    const b = testBoard();
    expect(b.call('pwm', 9, 1, 0.5)).toEqual({ error: 'ValueError: GPIO pin must be 1-8 or GPIO_1-GPIO_8' });
  });
});
