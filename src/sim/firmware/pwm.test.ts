import { describe, expect, it } from 'vitest';
import { pwmLevel } from './pwm.js';
import { testBoard } from './testEnv.js';

describe('pwm group (spec §6.7)', () => {
  it('drives the pin with the given frequency and duty', () => {
    const b = testBoard();
    b.call('pwm', 1, 2, 0.25);
    const pin = b.hardware.gpio[0];
    expect(pin?.pwm).toMatchObject({ freq: 2, duty: 0.25 });
    expect(pin && pwmLevel(pin, 0)).toBe(1);
    expect(pin && pwmLevel(pin, 200)).toBe(0);
  });

  it('reports below 0.01 Hz as a setup failure (the module range starts at 0.0009)', () => {
    const b = testBoard();
    expect(b.call('pwm', 1, 0.005, 0.5)).toEqual({ error: 'ValueError: PWM setup failed' });
    expect(b.call('pwm_set_frequency', 1, 0.005)).toEqual({ error: 'ValueError: PWM frequency set failed' });
  });

  it('starts a stopped pin on a duty change at the last frequency, else 1 kHz', () => {
    const b = testBoard();
    b.call('pwm_set_duty_cycle', 3, 0.1);
    expect(b.hardware.gpio[2]?.pwm).toMatchObject({ freq: 1000, duty: 0.1 });
    b.call('pwm_set_frequency', 3, 50);
    b.call('pwm_stop', 3);
    expect(b.hardware.gpio[2]?.pwm).toBeNull();
    b.call('pwm_set_duty_cycle', 3, 0.3);
    expect(b.hardware.gpio[2]?.pwm).toMatchObject({ freq: 50, duty: 0.3 });
  });

  it('leaves a slow PWM pin an input and a hardware PWM pin driving low when stopped', () => {
    const b = testBoard();
    b.call('pwm', 1, 1, 0.5);
    b.call('pwm', 2, 100, 0.5);
    b.call('pwm_stop', 1);
    b.call('pwm_stop', 2);
    expect(b.hardware.gpio[0]).toMatchObject({ direction: 1, level: 0 });
    expect(b.hardware.gpio[1]).toMatchObject({ direction: 0, level: 0 });
  });

  it('refuses pins outside 1-8', () => {
    const b = testBoard();
    expect(b.call('pwm', 9, 1, 0.5)).toEqual({ error: 'ValueError: GPIO pin must be 1-8 or GPIO_1-GPIO_8' });
  });
});
