/**
 * Fake GPIO pins (spec §6.14): `FakeGpioPin` on a node, read against two thresholds, and
 * `FakeGpioDisconnect`, which holds a path apart for a `with` block.
 */
import { isBridgeable } from '../../board/nodes.js';
import { asInt, asNum } from './args.js';
import type { FirmwareFn, FirmwareFunctions } from './types.js';

export interface FakeGpio {
  /** 0 input, 1 output. */
  mode: 0 | 1;
  thresholdHigh: number;
  thresholdLow: number;
  /** The level last read (inputs, for hysteresis) or written (outputs). */
  value: 0 | 1;
}

export interface FakeGpioState {
  pins: Map<number, FakeGpio>;
  /** Node pairs held apart by a FakeGpioDisconnect block. */
  heldApart: Set<string>;
}

export function createFakeGpioState(): FakeGpioState {
  return { pins: new Map(), heldApart: new Set() };
}

/** `lookup` reaches another group's function, for the voltage a fake GPIO input sees. */
export function fakeGpioFunctions(
  state: FakeGpioState,
  lookup: (name: string) => FirmwareFn | undefined,
): FirmwareFunctions {
  const nodeVolts = (node: number): number | undefined => {
    const fn = lookup('get_node_voltage');
    try {
      const v = fn?.(node);
      return typeof v === 'number' ? v : undefined;
    } catch {
      return undefined;
    }
  };

  return {
    /** FakeGpioPin(...): false when the node cannot take a fake GPIO (not a routable node). */
    fake_gpio_config: (node, mode, thresholdHigh, thresholdLow) => {
      const n = asInt(node);
      if (!isBridgeable(n)) return false;
      state.pins.set(n, {
        mode: asInt(mode) === 0 ? 0 : 1,
        thresholdHigh: asNum(thresholdHigh ?? 2.0),
        thresholdLow: asNum(thresholdLow ?? 0.8),
        value: 0,
      });
      return true;
    },
    fake_gpio_read: (node) => {
      const pin = state.pins.get(asInt(node));
      if (!pin) return 0;
      if (pin.mode === 0) {
        const v = nodeVolts(asInt(node)) ?? 0;
        if (v >= pin.thresholdHigh) pin.value = 1;
        else if (v <= pin.thresholdLow) pin.value = 0;
      }
      return pin.value;
    },
    // Fake GPIO outputs are disabled in the documented firmware: the level is remembered, nothing
    // is driven.
    fake_gpio_write: (node, value) => {
      const pin = state.pins.get(asInt(node));
      if (pin) pin.value = asInt(value) ? 1 : 0;
      return null;
    },
    fake_gpio_disconnect: (a, b) => {
      state.heldApart.add(`${asInt(a)},${asInt(b)}`);
      return true;
    },
    fake_gpio_reconnect: (a, b) => {
      state.heldApart.delete(`${asInt(a)},${asInt(b)}`);
      return true;
    },
  };
}
