/**
 * Fake GPIO (spec §6.14) as firmware 5.7.0.13 has it (src/FakeGpio.cpp):
 *
 * - Inputs: a breadboard row 1-60 only (FakeGpio.cpp:51-53, 659-662). The pin takes a free input
 *   slot and, the first time, a free ADC (0-3, one no bridge uses, TimeDomainMultiplexer.cpp:317,
 *   385); a bridge row <-> FAKE_GP_IN_<slot> goes into the state (FakeGpio.cpp:411), so the wiring
 *   changes. `value()` thresholds the row's voltage with hysteresis, starting LOW (FakeGpio.cpp:783-817).
 * - Outputs are disabled: configuring one does nothing and reports success, writes do nothing, and
 *   `value()` of a node with no slot is -1 (FakeGpio.cpp:335-354, 457-460, 527-528, 1272-1282).
 * - FakeGpioDisconnect / Reconnect return -1 at once (FakeGpio.cpp:1342, 1394): nothing happens.
 * The TDM switching of real inputs is not modelled: the row is read directly.
 */
import { ADC0, FAKE_GP_IN_0, nodeInfo } from '../../board/nodes.js';
import { asInt, asNum } from './args.js';
import type { FirmwareFn, FirmwareFunctions, Json } from './types.js';

export interface FakeGpioInput {
  node: number;
  thresholdHigh: number;
  thresholdLow: number;
  /** Last thresholded reading (hysteresis keeps it between the thresholds). */
  state: 0 | 1;
}

export interface FakeGpioState {
  /** Input slots by index (FAKE_GP_IN_<index>). */
  inputs: (FakeGpioInput | undefined)[];
  /** The ADC the inputs share, once one was assigned. */
  adc: number | undefined;
}

/** FAKE_GP_IN nodes the board knows (the firmware has 32; board/nodes.ts names fewer). */
const INPUT_SLOTS = (() => {
  let n = 0;
  while (nodeInfo(FAKE_GP_IN_0 + n)?.kind === 'fake_gpio') n++;
  return n;
})();

export function createFakeGpioState(): FakeGpioState {
  return { inputs: [], adc: undefined };
}

const isFakeInput = (id: number): boolean => id >= FAKE_GP_IN_0 && id < FAKE_GP_IN_0 + 32;

/**
 * `lookup` reaches other groups' functions: the bridge list, `connect`, a node's voltage.
 * `writeMain` gets the firmware's messages on the main port (none when omitted).
 */
export function fakeGpioFunctions(
  state: FakeGpioState,
  lookup: (name: string) => FirmwareFn | undefined,
  writeMain: (text: string) => void = () => {},
): FirmwareFunctions {
  const call = (name: string, ...args: Json[]): Json | undefined => lookup(name)?.(...args);

  /** isAdcInUseByOtherConnections: a bridge (other than a fake input's) touches ADC<ch>. */
  const adcInUse = (ch: number): boolean => {
    const count = Number(call('get_num_bridges') ?? 0);
    for (let i = 0; i < count; i++) {
      const b = call('get_bridge', i);
      if (!Array.isArray(b)) continue;
      const [n1, n2] = b as number[];
      if (n1 === undefined || n2 === undefined || isFakeInput(n1) || isFakeInput(n2)) continue;
      if (n1 === ADC0 + ch || n2 === ADC0 + ch) return true;
    }
    return false;
  };

  const nodeVolts = (node: number): number => {
    try {
      const v = call('_node_volts', node);
      return typeof v === 'number' ? v : 0;
    } catch {
      return 0;
    }
  };

  const inputSlotOf = (node: number): number => state.inputs.findIndex((s) => s?.node === node);

  return {
    /** fakeGpioConfigInput: the slot, or -1 (the module raises). */
    fake_gpio_config_input: (node, high, low) => {
      const n = asInt(node);
      if (n < 1 || n > 60) {
        writeMain('ERROR: fakeGpioConfigInput: node must be 1-60\r\n');
        return -1;
      }
      if (state.adc === undefined) {
        const free = [0, 1, 2, 3].find((ch) => !adcInUse(ch));
        if (free === undefined) {
          writeMain('ERROR: fakeGpioConfigInput: no free ADC (0-3 all in use)\r\n');
          return -1;
        }
        state.adc = free;
      }
      let slot = inputSlotOf(n);
      if (slot < 0) {
        slot = 0;
        while (slot < INPUT_SLOTS && state.inputs[slot]) slot++;
      }
      if (slot >= INPUT_SLOTS) {
        writeMain('ERROR: fakeGpioConfigInput: no free input slots\r\n');
        return -1;
      }
      state.inputs[slot] = { node: n, thresholdHigh: asNum(high), thresholdLow: asNum(low), state: 0 };
      // addBridgeToState(node, FAKE_GP_IN_<slot>, 0 duplicates), then a re-route.
      call('connect', n, FAKE_GP_IN_0 + slot, 0);
      return slot;
    },
    /** The legacy wrappers turn the disabled outputs' -1 into 0, which the module accepts. */
    fake_gpio_config_output: () => 0,
    fake_gpio_config_output_nodes: () => {
      writeMain('fake GPIO output disabled (until I fix it)');
      return 0;
    },
    fake_gpio_read: (node) => {
      const slot = inputSlotOf(asInt(node));
      const input = slot < 0 ? undefined : state.inputs[slot];
      if (!input) return -1;
      const v = nodeVolts(input.node);
      if (v >= input.thresholdHigh) input.state = 1;
      else if (v <= input.thresholdLow) input.state = 0;
      return input.state;
    },
    fake_gpio_write: () => -1,
    fake_gpio_disconnect: () => -1,
    fake_gpio_reconnect: () => -1,
  };
}
