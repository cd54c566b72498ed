import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/support/firmwareEnv.js';

const LOW = 0;
const HIGH = 1;
const FLOATING = 2;

describe('gpio group (spec §6.7)', () => {
  it('starts as inputs with pull-downs; read-floating is on for 1-8 and off for the UART pins', () => {
    const b = testBoard();
    expect(b.call('gpio_get_dir', 1)).toBe(1);
    expect(b.call('gpio_get_pull', 1)).toBe(-1);
    expect(b.call('gpio_get_pull', 9)).toBe(-1);
    expect([1, 8, 9, 10].map((p) => b.call('gpio_get_read_floating', p))).toEqual([true, true, false, false]);
    expect(b.call('gpio_get', 1)).toBe(FLOATING);
  });

  it('reads what drives the pin: an output on the same row, a rail through a row', () => {
    const b = testBoard();
    b.call('gpio_set_dir', 1, 0);
    b.call('gpio_set', 1, 1);
    b.call('connect', 'GPIO_1', 5);
    b.call('connect', 'GPIO_2', 5);
    expect(b.call('gpio_get', 2)).toBe(HIGH);
    b.call('gpio_set', 1, 0);
    expect(b.call('gpio_get', 2)).toBe(LOW);
    b.call('dac_set', 3, 3.3);
    b.call('connect', 'BOTTOM_RAIL', 12);
    b.call('connect', 'GPIO_3', 12);
    expect(b.call('gpio_get', 3)).toBe(HIGH);
  });

  it('reads an output as the level it drives (gpioReadWithFloating returns the pad)', () => {
    const b = testBoard();
    b.call('gpio_set_dir', 1, 0);
    b.call('gpio_set', 1, 1);
    expect(b.call('gpio_get', 1)).toBe(HIGH);
    b.call('gpio_set', 1, 2);
    expect(b.call('gpio_get', 1)).toBe(HIGH);
    b.call('gpio_set', 1, 0);
    expect(b.call('gpio_get', 1)).toBe(LOW);
    expect(b.call('gpio_get', 20)).toBe(LOW);
  });

  it('tests an input for floating whatever read_floating says', () => {
    const b = testBoard();
    b.call('gpio_set_read_floating', 1, false);
    expect(b.call('gpio_get', 1)).toBe(FLOATING);
    b.call('gpio_set_pull', 1, 1);
    expect(b.call('gpio_get', 1)).toBe(FLOATING);
    expect(b.call('gpio_get_pull', 1)).toBe(1);
  });

  it('always reads the UART pins (GP0/GP1) LOW', () => {
    const b = testBoard();
    b.call('dac_set', 2, 3.3);
    b.call('connect', 'TOP_RAIL', 30);
    b.call('connect', 'UART_TX', 30);
    expect(b.call('gpio_get', 9)).toBe(LOW);
    expect(b.call('gpio_get', 10)).toBe(LOW);
  });

  it('leaves a bus keeper a pull-up after reading HIGH under it, until the next routing refresh', () => {
    const b = testBoard();
    b.call('gpio_set_pull', 1, 2);
    b.call('gpio_set', 2, 1);
    b.call('gpio_set_dir', 2, 0);
    b.call('connect', 'GPIO_1', 55);
    b.call('connect', 'GPIO_2', 55);
    expect(b.call('gpio_get_pull', 1)).toBe(2);
    expect(b.call('gpio_get', 1)).toBe(HIGH);
    expect(b.call('gpio_get_pull', 1)).toBe(1);
    b.call('disconnect', 'GPIO_2', 55);
    expect(b.call('gpio_get_pull', 1)).toBe(2);
    // A keeper held LOW returns at once and stays a keeper.
    expect(b.call('gpio_get', 1)).toBe(LOW);
    expect(b.call('gpio_get_pull', 1)).toBe(2);
  });

  it('drives a configured output to its stale gpioState on the next refresh', () => {
    const b = testBoard();
    b.call('gpio_set', 1, 0);
    b.call('connect', 56, 57);
    b.call('gpio_set_dir', 1, 0);
    expect(b.call('gpio_get', 1)).toBe(LOW);
    b.call('disconnect', 56, 57);
    expect(b.call('gpio_get', 1)).toBe(HIGH);
    b.call('gpio_set', 1, 0);
    b.call('connect', 56, 57);
    expect(b.call('gpio_get', 1)).toBe(LOW);
  });

  it('keeps the firmware quirks: RP numbers 20-27 clear read-floating; an odd pull is none until a refresh', () => {
    const b = testBoard();
    b.call('gpio_set_read_floating', 21, true);
    expect(b.call('gpio_get_read_floating', 2)).toBe(false);
    b.call('gpio_set_pull', 4, 7);
    expect(b.call('gpio_get_pull', 4)).toBe(0);
    b.call('connect', 40, 41);
    expect(b.call('gpio_get_pull', 4)).toBe(-1);
    b.call('gpio_set', 5, 2);
    expect(b.hardware.gpio[4]?.level).toBe(1);
  });

  it('takes the pad back from a hardware PWM on gpio_set', () => {
    const b = testBoard();
    b.call('pwm', 1, 1000, 0.5);
    expect(b.hardware.gpio[0]?.pwm).not.toBeNull();
    b.call('gpio_set', 1, 0);
    expect(b.hardware.gpio[0]?.pwm).toBeNull();
  });

  it('ignores pin 0 (UART_TX as a node) like the backends do', () => {
    const b = testBoard();
    b.call('gpio_set', 0, 1);
    expect(b.call('gpio_get', 0)).toBe(LOW);
    expect(b.call('gpio_get_dir', 0)).toBe(0);
  });

  it('prints the getGPIOIndexFromPin lines and the warning for a pin that is not an RP GPIO number', () => {
    const b = testBoard();
    b.call('gpio_claim_pin', 20);
    expect(b.hardware.gpio[0]?.claimed).toBe(true);
    expect(b.takeMain()).toBe('');
    b.call('gpio_claim_pin', 5);
    const text = b.takeMain();
    expect(text).toContain('getGPIOIndexFromPin: 5\r\nFailed to find GPIO index');
    expect(text).toContain('WARNING: Pin 5 not found in gpioDef');
    b.call('gpio_release_pin', 5);
    expect(b.takeMain()).not.toContain('WARNING');
    b.call('gpio_release_all_pins');
    expect(b.hardware.gpio[0]?.claimed).toBe(false);
  });
});
