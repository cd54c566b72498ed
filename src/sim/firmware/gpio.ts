/**
 * Routable GPIO (spec §6.7). Pins arrive as the C module maps them: 1-10 (GPIO_1..8, UART TX, RX)
 * or the RP2350 numbers 20-27, and 0 (UART_TX as a node), which the backends ignore.
 *
 * `gpio_get` on pins 1-10 reads like the firmware's gpioReadWithFloating: the pin's own driver and
 * pull are taken off for the read (an output is briefly an input), the pad level is read, then a
 * weak pull the other way tells FLOATING apart (when read-floating is on, the default). So an output
 * pin reads what the rest of the circuit does, not its own latch: alone on the board it is FLOATING.
 * Pins 20-27 read the pad raw (own driver in place), HIGH or LOW.
 */
import { asInt, truthy } from './args.js';
import { type Circuit, gpioNodeOf, nodeName, type PinDrive } from './circuit.js';
import { type GpioPin, type Hardware, touch } from './hardware.js';
import type { FirmwareFunctions, FirmwareHost, Json } from './types.js';

/** Switching point of the RP2350 inputs at 3.3 V (between VIL 0.8 V and VIH 2.0 V). */
const THRESHOLD = 1.5;

/** Index 0-9 of a mapped pin: 1-10 -> 0-9, 20-27 -> 0-7; undefined for the pins the backends skip. */
export function pinIndex(pin: number): number | undefined {
  if (pin >= 1 && pin <= 10) return pin - 1;
  if (pin >= 20 && pin <= 27) return pin - 20;
  return undefined;
}

/** 0 LOW, 1 HIGH, 2 FLOATING, as gpioReadWithFloating answers for GPIO index 0-9. */
export function readPin(hw: Hardware, circuit: Circuit, index: number): 0 | 1 | 2 {
  const pin = hw.gpio[index] as GpioPin;
  const node = nodeName(gpioNodeOf(index));
  const volts = (drive: PinDrive): number => circuit.solve({ pin: { index, drive } }).voltage(node);
  // A PWM pad is driven by the PWM block whatever the SIO direction says.
  if (pin.pwm) return volts('configured') > THRESHOLD ? 1 : 0;
  if (!pin.readFloating) {
    return volts(pin.direction === 1 ? 'configured' : 'none') > THRESHOLD ? 1 : 0;
  }
  if (volts('none') > THRESHOLD) return volts('pulldown') > THRESHOLD ? 1 : 2;
  return volts('pullup') > THRESHOLD ? 2 : 0;
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
    const i = pinIndex(asInt(x));
    return i === undefined ? undefined : hw.gpio[i];
  };
  const change = (edit: () => void): null => {
    edit();
    touch(hw);
    return null;
  };
  return {
    gpio_set: (p, v) => {
      const pin = pinOf(p);
      // digitalWrite: any non-zero value (FLOATING = 2 too) writes HIGH.
      return change(() => {
        if (pin) pin.level = asInt(v) !== 0 ? 1 : 0;
      });
    },
    gpio_get: (p) => {
      const pin = asInt(p);
      const i = pinIndex(pin);
      if (i === undefined) return 0;
      if (pin >= 20) {
        const v = circuit.solve().voltage(nodeName(gpioNodeOf(i)));
        return v > THRESHOLD ? 1 : 0;
      }
      return readPin(hw, circuit, i);
    },
    gpio_set_dir: (p, d) => {
      const pin = pinOf(p);
      return change(() => {
        if (pin) pin.direction = asInt(d) !== 0 ? 1 : 0;
      });
    },
    gpio_get_dir: (p) => pinOf(p)?.direction ?? 0,
    gpio_set_pull: (p, v) => {
      const pin = pinOf(p);
      const pull = asInt(v);
      // jl_gpio_set_pull: any other value leaves both pulls off.
      return change(() => {
        if (pin) pin.pull = pull === 1 || pull === -1 || pull === 2 ? pull : 0;
      });
    },
    gpio_get_pull: (p) => pinOf(p)?.pull ?? 0,
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
      const i = defIndex(pin);
      const g = i === undefined ? undefined : hw.gpio[i];
      if (g) g.claimed = true;
      else host.writeMain(`\n*** [MicroPython] WARNING: Pin ${pin} not found in gpioDef ***\n`);
      return null;
    },
    gpio_release_pin: (p) => {
      const i = defIndex(asInt(p));
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
