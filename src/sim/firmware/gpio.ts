/**
 * Routable GPIO (spec §6.7). Pins arrive as the C module maps them: 1-10 (GPIO_1..8, UART TX, RX)
 * or the RP2350 numbers 20-27, and 0 (UART_TX as a node), which the backends ignore.
 *
 * `gpio_get` on pins 1-10 is the firmware's gpioReadWithFloating (Peripherals.cpp:761-882):
 * - UART TX/RX are GP0/GP1, which it never reads: always LOW (Peripherals.cpp:769-773);
 * - an output pad reads its own level (the level it drives, unless something stronger fights it);
 * - an input is tested with its pulls taken off and a pull the other way, so a pin nothing drives
 *   reads FLOATING, whatever `read_floating` says (that flag only steers the background reader,
 *   Peripherals.cpp:1265, which get_state's `reading` shows);
 * - a bus keeper (both pulls) is put back as a pull-up only when the pin read HIGH under it
 *   (Peripherals.cpp:797-806, 883): the read turns BUS_KEEPER into PULLUP.
 * Pins 20-27 read the pad raw, HIGH or LOW.
 * The bus keeper has no electrical model here: a pin under it alone on its net reads LOW.
 *
 * Every routing refresh (any connect or disconnect that changes a bridge) runs setGPIO
 * (Commands.cpp:455, Peripherals.cpp:693-758), which puts the configured direction and pulls back on
 * the pads of the pins no PWM uses and drives each configured output to its gpioState:
 * `syncGpioRefresh` applies it the next time anything looks at the pins.
 */
import { asInt, truthy } from './args.js';
import { type Circuit, gpioNodeOf, nodeName, type PinDrive } from './circuit.js';
import { type GpioPin, type Hardware, padDirection, padPull, syncGpioRefresh, touch } from './hardware.js';
import { pwmLevel } from './pwm.js';
import type { FirmwareFunctions, FirmwareHost, Json } from './types.js';

/** Switching point of the RP2350 inputs at 3.3 V (between VIL 0.8 V and VIH 2.0 V). */
const THRESHOLD = 1.5;
/** GPIO indexes 8 and 9 are UART TX/RX on GP0/GP1. */
const FIRST_UART_INDEX = 8;
/** Index 0-9 of a mapped pin: 1-10 -> 0-9, 20-27 -> 0-7; undefined for the pins the backends skip. */
export function pinIndex(pin: number): number | undefined {
  if (pin >= 1 && pin <= 10) return pin - 1;
  if (pin >= 20 && pin <= 27) return pin - 20;
  return undefined;
}

/** The pad's logic level with its own pin connected as `drive` (a read test) or as configured. */
function padLevel(circuit: Circuit, index: number, drive: PinDrive = 'configured'): 0 | 1 {
  const node = nodeName(gpioNodeOf(index));
  const request = drive === 'configured' ? {} : { pin: { index, drive } };
  return circuit.solve(request).voltage(node) > THRESHOLD ? 1 : 0;
}

/**
 * gpioReadWithFloating for GPIO index 0-9: 0 LOW, 1 HIGH, 2 FLOATING. With `mutate`, a bus keeper
 * that read HIGH is left a pull-up, as the firmware leaves it.
 */
function readWithFloating(hw: Hardware, circuit: Circuit, index: number, mutate: boolean): 0 | 1 | 2 {
  if (index >= FIRST_UART_INDEX) return 0;
  const pin = hw.gpio[index] as GpioPin;
  // An output (or a pad the PWM block drives) reads back what is on the pad.
  if (pin.pwm || padDirection(pin) === 0) return padLevel(circuit, index);
  const pull = padPull(pin);
  if (pull === 1 || pull === 2) {
    // gpio_is_pulled_up is true for a keeper too; a pin held LOW under it returns at once.
    if (padLevel(circuit, index, pull === 2 ? 'none' : 'pullup') === 0) return 0;
  } else if (pull === -1) {
    if (padLevel(circuit, index, 'pulldown') === 1) return 1;
  }
  let reading: 0 | 1 | 2;
  if (padLevel(circuit, index, 'none') === 1) reading = padLevel(circuit, index, 'pulldown') === 1 ? 1 : 2;
  else reading = padLevel(circuit, index, 'pullup') === 1 ? 2 : 0;
  if (pull === 2 && mutate) {
    pin.padPull = 1;
    touch(hw);
  }
  return reading;
}

/**
 * What the background reader (readGPIO, Peripherals.cpp:1232-1290) makes of GPIO index 0-9, which
 * get_state reports as `reading`: a configured output its output latch, a bus keeper or UART pin
 * the raw pad, an input with read-floating on the floating test, else the raw pad. It changes
 * nothing (a keeper is read raw).
 */
export function readPin(hw: Hardware, circuit: Circuit, index: number): 0 | 1 | 2 {
  syncGpioRefresh(hw);
  const pin = hw.gpio[index] as GpioPin;
  if (pin.direction === 0) return pwmLevel({ ...pin, pwm: null }, hw.now()) ? 1 : 0;
  if (pin.gpioState === 7 || index >= FIRST_UART_INDEX || !pin.readFloating) return padLevel(circuit, index);
  return readWithFloating(hw, circuit, index, false);
}

/** gpioDef order: GPIO_1..8 are RP pins 20-27, UART TX/RX are 0/1 (getGPIOIndexFromPin). */
function defIndex(pin: number): number | undefined {
  if (pin >= 20 && pin <= 27) return pin - 20;
  if (pin === 0) return 8;
  if (pin === 1) return 9;
  return undefined;
}

export function gpioGroup(hw: Hardware, circuit: Circuit, host: FirmwareHost): FirmwareFunctions {
  const pinOf = (x: Json | undefined): GpioPin | undefined => {
    syncGpioRefresh(hw);
    const i = pinIndex(asInt(x));
    return i === undefined ? undefined : hw.gpio[i];
  };
  const change = (edit: () => void): null => {
    edit();
    touch(hw);
    return null;
  };
  /** getGPIOIndexFromPin, with the lines it prints when the pin is not an RP GPIO number. */
  const gpioDefIndex = (pin: number): number | undefined => {
    const i = defIndex(pin);
    if (i === undefined) host.writeMain(`getGPIOIndexFromPin: ${pin}\r\nFailed to find GPIO index\r\n`);
    return i;
  };
  return {
    gpio_set: (p, v) => {
      const pin = pinOf(p);
      // jl_gpio_set -> digitalWrite: the pad goes to the SIO function (a hardware PWM on it stops
      // driving it) and any value but 0 writes HIGH, FLOATING (2) too. The direction is untouched.
      return change(() => {
        if (!pin) return;
        pin.level = asInt(v) !== 0 ? 1 : 0;
        pin.gpioState = pin.level;
        pin.pwm = null;
      });
    },
    gpio_get: (p) => {
      syncGpioRefresh(hw);
      const pin = asInt(p);
      const i = pinIndex(pin);
      if (i === undefined) return 0;
      if (pin >= 20) return padLevel(circuit, i);
      return readWithFloating(hw, circuit, i, true);
    },
    gpio_set_dir: (p, d) => {
      const pin = pinOf(p);
      return change(() => {
        if (!pin) return;
        pin.direction = asInt(d) !== 0 ? 1 : 0;
        pin.padDirection = null;
      });
    },
    // jl_gpio_get_dir reads the pad's SIO direction, not the config.
    gpio_get_dir: (p) => {
      const pin = pinOf(p);
      return pin ? padDirection(pin) : 0;
    },
    gpio_set_pull: (p, v) => {
      const pin = pinOf(p);
      const pull = asInt(v);
      return change(() => {
        if (!pin) return;
        if (pull === 1 || pull === -1 || pull === 2 || pull === 0) {
          pin.pull = pull;
          pin.padPull = null;
        } else {
          // jl_gpio_set_pull: any other value turns both pulls off but stores config code 0, a
          // pull-down, which the next refresh puts on (API.cpp:561-584, Peripherals.cpp:721).
          pin.pull = -1;
          pin.padPull = 0;
        }
      });
    },
    gpio_get_pull: (p) => {
      const pin = pinOf(p);
      return pin ? padPull(pin) : 0;
    },
    gpio_set_read_floating: (p, on) => {
      const pin = asInt(p);
      const g = pinOf(pin);
      // jl_gpio_set_floating_read: through the RP numbers 20-27 the flag is always cleared.
      if (g) g.readFloating = pin >= 20 ? false : truthy(on);
      return null;
    },
    gpio_get_read_floating: (p) => pinOf(p)?.readFloating ?? false,
    gpio_claim_pin: (p) => {
      const pin = asInt(p);
      const i = gpioDefIndex(pin);
      const g = i === undefined ? undefined : hw.gpio[i];
      if (g) g.claimed = true;
      else host.writeMain(`\n*** [MicroPython] WARNING: Pin ${pin} not found in gpioDef ***\n`);
      return null;
    },
    gpio_release_pin: (p) => {
      const i = gpioDefIndex(asInt(p));
      const g = i === undefined ? undefined : hw.gpio[i];
      if (g) g.claimed = false;
      return null;
    },
    gpio_release_all_pins: () => {
      for (const g of hw.gpio) g.claimed = false;
      return null;
    },
  };
}
