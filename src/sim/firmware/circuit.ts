/**
 * Board state -> DC circuit (spec §8), solved on demand for the ADC, INA and GPIO readings.
 *
 * - every routed bridge is `paths` crossbar paths of ~80 ohm in parallel (a bridge with N duplicates
 *   gets N paths, at least one, fewer when its duplicates found no free lanes); a bridge in no net,
 *   or one the crossbar had no lanes for (routing.ts), closes no crosspoint;
 * - DAC0, DAC1 and both rails are sources at their present output behind 0.5 ohm (the wave
 *   generator's channel follows the wave while it runs);
 * - ISENSE_PLUS-ISENSE_MINUS is the fixed 2 ohm shunt; every ADC input is 1 Mohm to ground;
 * - a GPIO output (or PWM) drives 3.3 V / 0 V through 50 ohm; an input has its weak pull (50 kohm);
 * - BUFFER_IN carries the probe's supply load (more in SELECT than in MEASURE, which is how the
 *   firmware tells the switch position from INA1); BUFFER_OUT follows BUFFER_IN through 50 ohm;
 * - the fixed supplies (3V3, 5V, +-8V) and the ground pins are what their names say;
 * - the probe tip, while it touches a pad, joins that node to ADC7 (the probe's measure input);
 * - parts from the parts file, already in solver form (see `nodeName`).
 * A node nothing drives reads 0 V (the solver's gmin), as an unrouted ADC does (spec §10).
 */
import { PATH_OHMS } from '../../board/limits.js';
import {
  ADC0,
  ADC7,
  BOTTOM_RAIL,
  BOTTOM_RAIL_GND,
  BUFFER_IN,
  BUFFER_OUT,
  DAC0,
  DAC1,
  GND,
  GPIO_1,
  ISENSE_MINUS,
  ISENSE_PLUS,
  SUPPLY_3V3,
  SUPPLY_5V,
  SUPPLY_8V_N,
  SUPPLY_8V_P,
  TOP_RAIL,
  TOP_RAIL_GND,
  UART_RX,
  UART_TX,
} from '../../board/nodes.js';
import { type Element, GROUND, isSolverError, type Solution, solveDc } from '../solver.js';
import {
  dacOutputVolts,
  type GpioPin,
  type Hardware,
  padDirection,
  padPull,
  syncGpioRefresh,
} from './hardware.js';
import { pwmIsTimeVarying, pwmLevel } from './pwm.js';
import { routingOf } from './routing.js';
import { PyError } from './types.js';
import { wavegenVolts } from './wavegen.js';

export const SOURCE_OHMS = 0.5;
export const SHUNT_OHMS = 2;
export const ADC_INPUT_OHMS = 1e6;
export const GPIO_DRIVE_OHMS = 50;
export const GPIO_PULL_OHMS = 50e3;
export const GPIO_VOLTS = 3.3;
/** Probe supply load on BUFFER_IN: about 0.5 mA in MEASURE, 2 mA in SELECT at 3.3 V. */
export const PROBE_LOAD_OHMS = { measure: 6600, select: 1650 } as const;

/** Contact resistance of the probe tip on a pad. */
export const PROBE_TIP_OHMS = 10;

const GROUND_NODES = new Set([GND, TOP_RAIL_GND, BOTTOM_RAIL_GND, 96, 97]);

/** The solver's name for a board node: `n<id>`, and ground for GND and the ground pins. */
export function nodeName(id: number): string {
  return GROUND_NODES.has(id) ? GROUND : `n${id}`;
}

/** The node of GPIO index 0-9 (GPIO_1..8, UART TX, UART RX). */
export function gpioNodeOf(index: number): number {
  return index < 8 ? GPIO_1 + index : index === 8 ? UART_TX : UART_RX;
}

/** How one GPIO pin is connected for a solve: as configured, or forced for a read test. */
export type PinDrive = 'configured' | 'none' | 'pullup' | 'pulldown';

export interface SolveRequest {
  /** Replace one pin's own driver (the firmware disconnects it while it reads the pin). */
  pin?: { index: number; drive: PinDrive };
}

export const DAC_NODES = [DAC0, DAC1, TOP_RAIL, BOTTOM_RAIL] as const;

export interface Circuit {
  /** Solves the board as it is now (cached while nothing that moves a voltage changed). */
  solve(request?: SolveRequest): Solution;
  /** The elements of a solve, for tests and debugging. */
  elements(request?: SolveRequest): Element[];
}

function pinElements(index: number, pin: GpioPin, drive: PinDrive, nowMs: number): Element[] {
  const node = nodeName(gpioNodeOf(index));
  const id = `gpio${index}`;
  let mode: PinDrive | 'out' = drive;
  if (drive === 'configured') {
    // A pad in the PWM function is driven by the PWM block whatever the SIO direction says.
    if (pin.pwm || padDirection(pin) === 0) mode = 'out';
    else mode = padPull(pin) === 1 ? 'pullup' : padPull(pin) === -1 ? 'pulldown' : 'none';
  }
  if (mode === 'out') {
    const level = pwmLevel(pin, nowMs);
    return [{ kind: 'source', id, node, volts: GPIO_VOLTS * level, ohms: GPIO_DRIVE_OHMS }];
  }
  if (mode === 'pullup') return [{ kind: 'source', id, node, volts: GPIO_VOLTS, ohms: GPIO_PULL_OHMS }];
  if (mode === 'pulldown') return [{ kind: 'resistor', id, a: node, b: GROUND, ohms: GPIO_PULL_OHMS }];
  return [];
}

export function createCircuit(hw: Hardware, parts: readonly Element[] = []): Circuit {
  let cache: { key: string; solution: Solution } | undefined;
  let connsSeen = hw.conns;
  let epoch = 0;

  const timeVarying = (): boolean => hw.wavegen.running || hw.gpio.some(pwmIsTimeVarying);

  const dacVolts = (ch: number, nowMs: number): number => {
    const w = hw.wavegen;
    const volts =
      w.running && w.output === ch ? dacOutputVolts(wavegenVolts(w, nowMs)) : (hw.dacOut[ch] ?? 0);
    // A wave set up with inf/nan would be clipped by the DAC code; it never makes a non-number.
    return Number.isFinite(volts) ? volts : 0;
  };

  function build(request: SolveRequest, nowMs: number, bufferOut?: number): Element[] {
    const els: Element[] = [];
    const routing = routingOf(hw);
    for (const b of hw.conns.bridges()) {
      if (b.net === -1) continue;
      const route = routing.route(b.node1, b.node2);
      if (!route?.routed) continue;
      const a = nodeName(b.node1);
      const z = nodeName(b.node2);
      if (a === z) continue;
      const paths = Math.max(1, Math.min(b.duplicates, route.paths));
      els.push({ kind: 'resistor', a, b: z, ohms: PATH_OHMS / paths });
    }
    DAC_NODES.forEach((node, ch) => {
      els.push({
        kind: 'source',
        id: `dac${ch}`,
        node: nodeName(node),
        volts: dacVolts(ch, nowMs),
        ohms: SOURCE_OHMS,
      });
    });
    els.push({
      kind: 'resistor',
      id: 'shunt',
      a: nodeName(ISENSE_PLUS),
      b: nodeName(ISENSE_MINUS),
      ohms: SHUNT_OHMS,
    });
    for (let id = ADC0; id <= ADC7; id++) {
      els.push({ kind: 'resistor', a: nodeName(id), b: GROUND, ohms: ADC_INPUT_OHMS });
    }
    hw.gpio.forEach((pin, index) => {
      const drive = request.pin?.index === index ? request.pin.drive : 'configured';
      els.push(...pinElements(index, pin, drive, nowMs));
    });
    const probeLoad = hw.probe.switchPosition === 1 ? PROBE_LOAD_OHMS.select : PROBE_LOAD_OHMS.measure;
    els.push({ kind: 'resistor', id: 'probe', a: nodeName(BUFFER_IN), b: GROUND, ohms: probeLoad });
    const pad = hw.probe.pad;
    if (pad >= 1 && pad <= 99 && nodeName(pad) !== nodeName(ADC7)) {
      els.push({
        kind: 'resistor',
        id: 'probe-tip',
        a: nodeName(pad),
        b: nodeName(ADC7),
        ohms: PROBE_TIP_OHMS,
      });
    }
    if (bufferOut !== undefined) {
      els.push({
        kind: 'source',
        id: 'buffer',
        node: nodeName(BUFFER_OUT),
        volts: bufferOut,
        ohms: GPIO_DRIVE_OHMS,
      });
    }
    els.push({ kind: 'source', node: nodeName(SUPPLY_3V3), volts: 3.3, ohms: SOURCE_OHMS });
    els.push({ kind: 'source', node: nodeName(SUPPLY_5V), volts: 5, ohms: SOURCE_OHMS });
    els.push({ kind: 'source', node: nodeName(SUPPLY_8V_P), volts: 8, ohms: SOURCE_OHMS });
    els.push({ kind: 'source', node: nodeName(SUPPLY_8V_N), volts: -8, ohms: SOURCE_OHMS });
    els.push(...parts);
    return els;
  }

  const bufferOutRouted = (): boolean =>
    hw.conns
      .bridges()
      .some(
        (b) =>
          b.net !== -1 &&
          (b.node1 === BUFFER_OUT || b.node2 === BUFFER_OUT) &&
          routingOf(hw).route(b.node1, b.node2)?.routed === true,
      );

  function elementsFor(request: SolveRequest, nowMs: number): Element[] {
    if (!bufferOutRouted()) return build(request, nowMs);
    // The routable buffer is an op-amp follower: solve once for its input, then drive its output.
    const first = solveDc(build(request, nowMs));
    return build(request, nowMs, first.voltage(nodeName(BUFFER_IN)));
  }

  return {
    elements: (request = {}) => elementsFor(request, hw.now()),
    solve(request = {}) {
      syncGpioRefresh(hw);
      if (hw.conns !== connsSeen) {
        connsSeen = hw.conns;
        epoch++;
      }
      const now = hw.now();
      const key = [
        epoch,
        hw.conns.changeCount,
        hw.version,
        hw.probe.switchPosition,
        hw.probe.pad,
        request.pin ? `${request.pin.index}:${request.pin.drive}` : '-',
        timeVarying() ? now : 'static',
      ].join('|');
      if (cache?.key === key) return cache.solution;
      let solution: Solution;
      try {
        solution = solveDc(elementsFor(request, now));
      } catch (error) {
        // Only a parts file can make the circuit unsolvable (a diode loop that will not converge).
        if (isSolverError(error)) throw new PyError('RuntimeError', `circuit: ${error.message}`);
        throw error;
      }
      cache = { key, solution };
      return solution;
    },
  };
}
