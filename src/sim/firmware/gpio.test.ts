import { describe, expect, it } from 'vitest';
import { testBoard } from './testEnv.js';

const LOW = 0;
const HIGH = 1;
const FLOATING = 2;

describe('gpio group (spec §6.7)', () => {
  it('starts as inputs with read-floating on: an unconnected pin reads FLOATING', () => {
    const b = testBoard();
    expect(b.call('gpio_get_dir', 1)).toBe(1);
    expect(b.call('gpio_get_read_floating', 1)).toBe(true);
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
    b.call('connect', 'BOTTOM_RAIL', 'GPIO_3');
    expect(b.call('is_connected', 'BOTTOM_RAIL', 'GPIO_3')).toBe(false);
    b.call('connect', 'BOTTOM_RAIL', 12);
    b.call('connect', 'GPIO_3', 12);
    expect(b.call('gpio_get', 3)).toBe(HIGH);
  });

  it('takes an output pin off its own driver to read it, as gpioReadWithFloating does', () => {
    const b = testBoard();
    b.call('gpio_set_dir', 1, 0);
    b.call('gpio_set', 1, 1);
    expect(b.call('gpio_get', 1)).toBe(FLOATING);
    // Through the RP2350 numbers the pad is read raw, with its driver.
    expect(b.call('gpio_get', 20)).toBe(HIGH);
  });

  it('without read-floating, an open input reads its pull', () => {
    const b = testBoard();
    b.call('gpio_set_read_floating', 1, false);
    expect(b.call('gpio_get', 1)).toBe(LOW);
    b.call('gpio_set_pull', 1, 1);
    expect(b.call('gpio_get', 1)).toBe(HIGH);
    expect(b.call('gpio_get_pull', 1)).toBe(1);
  });

  it('keeps the firmware quirks: RP numbers 20-27 clear read-floating, odd pulls are none', () => {
    const b = testBoard();
    b.call('gpio_set_read_floating', 21, true);
    expect(b.call('gpio_get_read_floating', 2)).toBe(false);
    b.call('gpio_set_pull', 4, 7);
    expect(b.call('gpio_get_pull', 4)).toBe(0);
    b.call('gpio_set', 5, 2);
    expect(b.hardware.gpio[4]?.level).toBe(1);
  });

  it('ignores pin 0 (UART_TX as a node) like the backends do', () => {
    const b = testBoard();
    b.call('gpio_set', 0, 1);
    expect(b.call('gpio_get', 0)).toBe(LOW);
    expect(b.call('gpio_get_dir', 0)).toBe(0);
  });

  it('warns on the main port when claiming a pin that is not an RP GPIO number', () => {
    const b = testBoard();
    b.call('gpio_claim_pin', 20);
    expect(b.hardware.gpio[0]?.claimed).toBe(true);
    expect(b.takeMain()).toBe('');
    b.call('gpio_claim_pin', 5);
    expect(b.takeMain()).toContain('WARNING: Pin 5 not found in gpioDef');
    b.call('gpio_release_all_pins');
    expect(b.hardware.gpio[0]?.claimed).toBe(false);
  });
});
