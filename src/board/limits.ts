/** Electrical and data limits of the V5 as data, shared by the simulator and the tools. */

export interface Range {
  readonly min: number;
  readonly max: number;
}

export const inRange = (r: Range, v: number): boolean => Number.isFinite(v) && v >= r.min && v <= r.max;

/** §8.2: routing tables. */
export const MAX_BRIDGES = 128;
export const MAX_NETS = 60;
export const MAX_NODES_PER_NET = 40;
/** §8.2 `[routing] stack_paths=2`: parallel paths a new bridge gets when `duplicates` is -1. */
export const DEFAULT_STACK_PATHS = 2;

/** §6.5 / §8.4: treat +-8 V as the safe envelope of DAC0, DAC1 and both rails. */
export const DAC_SAFE: Range = { min: -8, max: 8 };
/** The channel `dac_set` takes for each supply (JumperlessMicroPythonAPI.cpp map_node_to_dac_channel). */
export const DAC_CHANNELS = { DAC0: 0, DAC1: 1, TOP_RAIL: 2, BOTTOM_RAIL: 3 } as const;
/** §6.5: fresh-slot setpoints. */
export const DEFAULT_POWER = { topRail: 0, bottomRail: 0, dac0: 3.33, dac1: 0 } as const;

/** §6.6 / §8.5: input range per ADC channel. Channels 0-3 and 7 are offset-centred, 4 is 0-5 V. */
export const ADC_RANGES: Readonly<Record<number, Range>> = {
  0: { min: -8.9, max: 8.9 },
  1: { min: -8.9, max: 8.9 },
  2: { min: -8.9, max: 8.9 },
  3: { min: -8.9, max: 8.9 },
  4: { min: 0, max: 4.9 },
  7: { min: -8.9, max: 8.9 },
};

/** §6.6 / §8.6: the INA219 sensors' fixed shunt. */
export const ISENSE_SHUNT_OHMS = 2;

/** §8.2: one crossbar path is about 80 ohm. */
export const PATH_OHMS = 80;

/** §6.7: `gpio_*` pins: 1-8 GPIO, 9 UART TX, 10 UART RX. PWM only on 1-8. */
export const GPIO_PINS: Range = { min: 1, max: 10 };
export const PWM_PINS: Range = { min: 1, max: 8 };
/**
 * What `pwm()` really starts: the module accepts 0.0009 Hz, but setupPWM refuses below 0.01 Hz
 * (Peripherals.cpp:2775, `PWM setup failed`).
 */
export const PWM_FREQ_HZ: Range = { min: 0.01, max: 62_500_000 };
export const PWM_DUTY: Range = { min: 0, max: 1 };
/** Below this a timer drives the pin as a plain SIO output ("slow PWM", Peripherals.cpp:2780). */
export const PWM_SLOW_BELOW_HZ = 10;
/** GPIO_1/2, 3/4, 5/6, 7/8 share one PWM slice: frequency and enable are per pair. */
export const pwmSlicePartner = (pin: number): number => (pin % 2 === 1 ? pin + 1 : pin - 1);

/** §6.8 WaveGen. */
export const WAVEGEN_FREQ_HZ: Range = { min: 0.0001, max: 10_000 };
export const WAVEGEN_AMPLITUDE_VPP: Range = { min: 0, max: 16 };
/**
 * What `wavegen_start` applies to every parameter never set since boot (JumperlessMicroPythonAPI.cpp:270-292).
 */
export const WAVEGEN_DEFAULTS = { output: 1, freq: 100, wave: 0, amplitude: 3.3, offset: 1.65 } as const;
/** What the getters report before anything is set: the WaveGen constructor (WaveGen.cpp:20-27). */
export const WAVEGEN_POWER_ON = { output: 0, freq: 1000, wave: 0, amplitude: 2, offset: 0 } as const;

/** §6.12: overlay canvas, rows 1-10 by columns 1-30. */
export const OVERLAY_ROWS = 10;
export const OVERLAY_COLS = 30;

/** §6.11: OLED. */
export const OLED_WIDTH = 128;
export const OLED_HEIGHT = 32;

/** §6.4 slots. */
export const SLOTS: Range = { min: 0, max: 7 };

/** FatFS FF_MAX_LFN (lib/FatFS/src/ffconf.h:116-117): characters in one file or folder name. */
export const FILE_NAME_MAX = 64;
