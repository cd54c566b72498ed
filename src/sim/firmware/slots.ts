/**
 * Slots, state and context (spec §6.4, §7).
 *
 * - The RAM state (bridges, net looks, power setpoints) lives in `hw`; `nodes_save(slot)` writes
 *   `/slots/slotN.yaml` and `switch_slot` loads one (a slot never saved starts fresh: the
 *   probe-power bridge and the default setpoints). Unsaved changes of the slot left behind are lost.
 * - `nodes_has_changes()` compares with the state saved last (or loaded, or present at boot), and
 *   `nodes_discard()` goes back to it and writes it out, as restoreAndSaveStateBackup does. (The
 *   firmware takes that copy when Python starts; the simulator's Python starts at boot and stays up,
 *   so it refreshes the copy on every save and slot switch.)
 * - `set_state` failures print `set_state error: ...` on the main port and return -1, never raise.
 *   Wokwi diagrams are not supported. A `nets` section replaces the bridges when clear_first (each
 *   net's nodes are bridged in a chain; bridges get the default duplicates, the JSON has no counts).
 * - `context_toggle()` flips global/python; the built-in REPL whose exit would roll Python's changes
 *   back is not simulated, so the flag has no further effect.
 */

import { parseColor } from '../../board/colors.js';
import { Connections, defaultNetName } from '../../board/connections.js';
import {
  formatSlotYaml,
  parseSlotYaml,
  type SlotData,
  slotFromConnections,
  slotPath,
} from '../../board/slots.js';
import {
  buildState,
  formatState,
  type GpioInput,
  type GpioPullName,
  type GpioReading,
  parseState,
  type StateUpdate,
} from '../../board/state.js';
import { ADC_CHANNELS, readAdc } from './adc.js';
import { asInt, truthy } from './args.js';
import type { Circuit } from './circuit.js';
import { readPin } from './gpio.js';
import {
  applyPower,
  freshConnections,
  freshPower,
  type GpioPin,
  type Hardware,
  type PowerSetpoints,
  type Snapshot,
  touch,
} from './hardware.js';
import { recordChange } from './history.js';
import { type FirmwareFunctions, type FirmwareHost, PyError, type VirtualFs } from './types.js';

const PULL_NAMES: Record<number, GpioPullName> = { 1: 'up', [-1]: 'down', 0: 'none', 2: 'keeper' };
const PULL_VALUES: Record<GpioPullName, GpioPin['pull']> = { up: 1, down: -1, none: 0, keeper: 2 };
const READINGS: readonly GpioReading[] = ['low', 'high', 'float'];

function snapshot(hw: Hardware): Snapshot {
  return { conns: hw.conns.clone(), power: { ...hw.power } };
}

function sameState(hw: Hardware, s: Snapshot): boolean {
  const a = hw.conns.bridges();
  const b = s.conns.bridges();
  const samePower = (Object.keys(s.power) as (keyof PowerSetpoints)[]).every(
    (k) => hw.power[k] === s.power[k],
  );
  return (
    samePower &&
    a.length === b.length &&
    a.every((x, i) => x.node1 === b[i]?.node1 && x.node2 === b[i]?.node2 && x.duplicates === b[i]?.duplicates)
  );
}

/** Builds RAM state from a slot file. */
export function connectionsFromSlot(slot: SlotData): Connections {
  const conns = new Connections();
  for (const b of slot.bridges) conns.connect(b.n1, b.n2, b.dup);
  for (const n of slot.nets) {
    const index = n.nodes[0] === undefined ? undefined : conns.netOf(n.nodes[0]);
    if (index === undefined) continue;
    if (n.name !== undefined) conns.setNetName(index, n.name);
    const color = n.color === undefined ? undefined : parseColor(n.color);
    if (color?.ok) conns.setNetColor(index, color.color);
  }
  return conns;
}

export function slotsGroup(
  hw: Hardware,
  circuit: Circuit,
  host: FirmwareHost,
  fs: () => VirtualFs,
): FirmwareFunctions {
  const restore = (s: Snapshot): void => {
    hw.conns = s.conns.clone();
    hw.power = { ...s.power };
    applyPower(hw);
  };

  const save = (slot: number): void => {
    const files = fs();
    if (!files.exists('/slots')) files.mkdir('/slots');
    files.writeFile(slotPath(slot), formatSlotYaml(slotFromConnections(hw.conns, hw.power)));
  };

  /** The state a slot holds on flash; a fresh one when it was never saved or cannot be read. */
  const load = (slot: number): Snapshot => {
    const files = fs();
    const path = slotPath(slot);
    if (files.exists(path)) {
      const parsed = parseSlotYaml(new TextDecoder().decode(files.readFile(path)));
      if (parsed.ok) return { conns: connectionsFromSlot(parsed.slot), power: { ...parsed.slot.power } };
      host.writeMain(`Error loading slot ${slot}: ${parsed.error}\n`);
    }
    return { conns: freshConnections(), power: freshPower() };
  };

  const gpioInputs = (): GpioInput[] =>
    hw.gpio.map((g, i) => ({
      function: g.pwm ? 'PWM' : 'SIO',
      direction: g.direction === 0 ? 'OUTPUT' : 'INPUT',
      pull: PULL_NAMES[g.pull] ?? 'none',
      reading: READINGS[readPin(hw, circuit, i)] ?? 'unknown',
      floatingRead: g.readFloating,
    }));

  const applyUpdate = (update: StateUpdate, clearFirst: boolean): void => {
    if (update.nets) {
      // The document lists every net, the probe-power one included: start from nothing.
      if (clearFirst) hw.conns = new Connections();
      for (const net of update.nets) {
        for (let i = 1; i < net.nodes.length; i++) {
          hw.conns.connect(net.nodes[i - 1] as number, net.nodes[i] as number);
        }
      }
      for (const net of update.nets) {
        const index = net.nodes[0] === undefined ? undefined : hw.conns.netOf(net.nodes[0]);
        if (index !== undefined && net.name !== undefined && net.name !== defaultNetName(index)) {
          if (index > 5) hw.conns.setNetName(index, net.name);
        }
      }
    }
    if (update.power) {
      const p = update.power;
      if (p.top_rail !== undefined) hw.power.topRail = p.top_rail;
      if (p.bottom_rail !== undefined) hw.power.bottomRail = p.bottom_rail;
      if (p.dac0 !== undefined) hw.power.dac0 = p.dac0;
      if (p.dac1 !== undefined) hw.power.dac1 = p.dac1;
      applyPower(hw);
    }
    for (const g of update.gpio ?? []) {
      const pin = hw.gpio[g.pin === 'TX' ? 8 : g.pin === 'RX' ? 9 : g.pin - 1];
      if (!pin) continue;
      if (g.direction) pin.direction = g.direction === 'OUTPUT' ? 0 : 1;
      if (g.pull) pin.pull = PULL_VALUES[g.pull];
      if (g.floating_read !== undefined) pin.readFloating = g.floating_read === 1;
    }
    if (update.overlays) {
      hw.overlays.replace(
        update.overlays.map((o) => ({ ...o, colors: o.colors.map((c) => Number.parseInt(c, 16)) })),
      );
    }
    touch(hw);
    recordChange(hw, 'set_state');
  };

  return {
    _boot: () => {
      restore(load(hw.slot));
      hw.entry = snapshot(hw);
      return null;
    },
    nodes_save: (slot = -1) => {
      const s = asInt(slot);
      const target = s === -1 ? hw.slot : s;
      save(target);
      if (target === hw.slot) hw.entry = snapshot(hw);
      return target;
    },
    switch_slot: (slot) => {
      const s = asInt(slot);
      if (s < 0 || s > 7) throw new PyError('ValueError', 'Invalid slot number');
      if (s === hw.slot) return s;
      const previous = hw.slot;
      hw.slot = s;
      restore(load(s));
      hw.entry = snapshot(hw);
      recordChange(hw, `slot ${s}`);
      return previous;
    },
    CURRENT_SLOT: () => hw.slot,
    nodes_discard: () => {
      restore(hw.entry);
      save(hw.slot);
      recordChange(hw, 'discard');
      return null;
    },
    nodes_has_changes: () => !sameState(hw, hw.entry),
    context_get: () => hw.context,
    context_toggle: () => {
      hw.context = hw.context === 'global' ? 'python' : 'global';
      return null;
    },
    get_state: () => {
      // The board measures in the background, so an ADC net shows a fresh reading.
      for (const ch of ADC_CHANNELS) readAdc(hw, circuit, ch);
      return formatState(
        buildState(hw.conns, {
          power: hw.power,
          adc: hw.lastAdc,
          gpio: gpioInputs(),
          overlays: hw.overlays.list(),
        }),
      );
    },
    set_state: (json, clearFirst = true, fromWokwi = false) => {
      if (truthy(fromWokwi)) {
        host.writeMain('set_state wokwi error: Wokwi diagrams are not supported by the simulator\n');
        return -1;
      }
      const parsed = parseState(typeof json === 'string' ? json : '');
      if (!parsed.ok) {
        host.writeMain(`set_state error: ${parsed.error}\n`);
        return -1;
      }
      applyUpdate(parsed.state, truthy(clearFirst));
      return 0;
    },
    _slot_yaml: () => formatSlotYaml(slotFromConnections(hw.conns, hw.power)),
  };
}
