/**
 * A compact reference of the board's `jumperless` MicroPython module, served as a resource for
 * clients that write Python (python_exec) or want to know what the tools stand on. Facts from the
 * firmware source (JumperlOS 5.7.0.13 and 5.7.11), each backed by a probe in src/board/probes/, in
 * our own words. E.g. gpio_set stores the level and leaves the direction to gpio_set_dir
 * (JumperlessMicroPythonAPI.cpp:458-466, probe gpio.set_keeps_direction); FLOATING writes HIGH
 * (gpio.output_reads_own_level); pins start as inputs (gpio.defaults_after_boot).
 */
export const API_REFERENCE = `# Jumperless V5: the \`jumperless\` MicroPython module

Every function below is a global in the board's REPL (\`from jumperless import *\`; after a soft
reset the name \`jumperless\` itself is gone: use \`import jumperless\`). Voltages are in volts,
currents in amperes, power in watts. Many calls fail silently: check the effect after changing
anything. The heap is 64 KB on a board without PSRAM (96000 bytes on 5.7.0.13); floats are single
precision. \`dir(jumperless)\` tells what a board's firmware has (see Releases).

## Nodes
- Rows \`1\`-\`60\` (1-30 top half, 31-60 bottom half; each row is a strip of 5 holes).
- Supplies: \`TOP_RAIL\` (101), \`BOTTOM_RAIL\` (102), \`DAC0\` (106), \`DAC1\` (107), \`GND\` (100).
- Measurement: \`ADC0\`-\`ADC3\` (110-113, about +-8.9 V), \`ADC4\` (114, 0-5 V), \`PROBE\` (115),
  \`ISENSE_PLUS\`/\`ISENSE_MINUS\` (108/109, a 2 ohm shunt read by INA sensor 0).
- GPIO: \`GPIO_1\`-\`GPIO_8\` (131-138), \`UART_TX\`/\`UART_RX\` (116/117), \`BUFFER_IN\`/\`BUFFER_OUT\` (139/140).
- Nano header: \`D0\`-\`D13\` (70-83), \`A0\`-\`A7\` (86-93).
- Names are case-insensitive strings. A node the V5 has no crosspoint for is refused silently.
- Node, GPIOState and the other firmware types compare equal only to their own kind:
  \`D13 == 83\` and \`HIGH == 1\` are False on the board. Use \`int(x) == 83\` or \`str(x)\`; they are
  not hashable (no dict keys or sets). Truth tests (\`if is_connected(a, b):\`) work.

## Connections
- \`connect(a, b)\` adds a bridge; silently ignored for invalid nodes, a == b, forbidden pairs
  (GND, rails and DACs with each other, GPIO/UART/BUFFER_OUT with a rail or DAC) or a full table
  (128 bridges). A bridge that would merge two supply nets is stored but never routed.
- A bridge is a crossbar path of about 80 ohm (copies routed in parallel lower it), not a wire: a load
  drawing milliamps through it sees less than the supply.
- \`disconnect(a, b)\`; \`disconnect(a, -1)\` removes every bridge of a. \`nodes_clear()\` removes all,
  the probe power bridge BUFFER_IN-DAC0 too (put it back with \`connect(BUFFER_IN, DAC0, 0)\`).
- \`is_connected(a, b)\`: true only for a direct bridge, not for two nodes in the same net.
- \`get_num_bridges()\`, \`get_bridge(i) -> (a, b, duplicates)\`, \`get_path_between(a, b)\`: None when
  the bridge is in no net (two supply nets are never joined); a path the crossbar could not place
  keeps its net number but has lanes (\`x\`, \`y\`) of -1.

## Nets
- Nets 1-5 always exist: GND, Top Rail, Bottom Rail, DAC 0, DAC 1. User nets start at 6 and
  renumber as wiring changes.
- \`get_num_nets()\` (valid indices 1..n-1), \`get_net_info(i)\`, \`get_net_name(i)\`,
  \`set_net_name(i, name)\`, \`get_net_color(i) -> 0xRRGGBB\`, \`set_net_color(i, color) -> bool\`.
- Never call \`print_nets()\` from a script: it blocks until the probe button is pressed, and
  Ctrl-C does not stop it.

## Supplies and measurement
- \`dac_set(ch, volts, save=True)\`: ch 0 DAC0, 1 DAC1, 2 TOP_RAIL, 3 BOTTOM_RAIL; keep within +-8 V.
  \`dac_get(ch)\` returns the stored setpoint, not a measurement. DAC0 powers the probe LEDs.
- \`adc_get(ch)\` (ch a plain int 0-3) returns volts (a float, about +-8.9 V; the mean of 16
  samples) on node \`ADC0\`-\`ADC3\`, which reads only what it is bridged to: connect it first.
  Example, the voltage on row 20:
  \`\`\`
  connect(ADC0, 20)
  print(adc_get(0))
  \`\`\`
- \`ina_get_current(0)\`, \`ina_get_bus_voltage(0)\`, \`ina_get_power(0)\`: sensor 0 is the ISENSE
  shunt (about +-0.16 A before the shunt ADC saturates).
- Settling: 2-10 ms after connect or dac_set, 50-100 ms after nodes_clear or set_state.

## GPIO and PWM
- \`gpio_set(pin, 'HIGH'|'LOW'|'FLOATING')\` sets the level only (FLOATING writes HIGH); the direction
  stays (INPUT at power-on), so call \`gpio_set_dir(pin, 'OUTPUT')\` first to drive the pin.
- \`gpio_get(pin)\`, \`gpio_set_dir(pin, 'OUTPUT'|'INPUT')\` (a plain int 1 means INPUT),
  \`gpio_set_pull(pin, 'UP'|'DOWN'|'NONE')\`; pins 1-8, 9 TX, 10 RX.
- \`pwm(pin, freq=1.0, duty=0.5)\` (the default is 1 Hz), \`pwm_stop(pin)\`.

## Slots and state
- \`get_state()\` returns the board as JSON (power, nets, gpio, overlays);
  \`set_state(json)\` scans the text rather than parsing it: only quoted node names count, net names
  are ignored, numbers stop at an exponent; it returns 0 or -1 and reports errors on the main port.
- \`nodes_save(slot)\` writes /slots/slotN.yaml and makes that slot the active one;
  \`switch_slot(n)\` only renumbers: the wiring in RAM stays and is saved into slot n by the board's
  autosave (about a second after the last change). Use the slot_switch tool to load a slot.
  \`nodes_has_changes()\` and \`nodes_discard()\` only work in the board's own \`p\` REPL.

## LEDs and OLED
- \`overlay_set(name, x_col, y_row, height, width, colors)\` (note: height before width) on a
  30-column x 10-row canvas; colours 0xRRGGBB, 0 transparent. \`overlay_clear(name)\`,
  \`overlay_clear_all()\`, \`overlay_set_pixel(x_col, y_row, color)\` (takes one of the 8 overlay slots
  as a full-canvas overlay). \`overlay_serialize()\` is cut at 4095 characters; \`get_state()\`'s
  overlays section is not.
- \`oled_print(text)\`, \`oled_clear()\` on the 128x32 display.

## Files
- \`open()\` and \`jfs.open()\` return the same file object: \`read()\` gives at most 8192 bytes per call,
  there is no \`readline\` or line iteration; mode 'a' empties the file (append with 'r+' and a seek).
  Names are case-insensitive (FAT), at most 64 characters.

## Releases
- 5.7.11 has no logic analyzer (\`la_*\`). It adds \`get_node_voltage(node)\` (the node's volts from
  the board's passive scan, without routing an ADC), \`get_net_current(net)\`, \`get_path_current(a, b)\`,
  a parts database (\`place_part\`, \`list_parts\`, \`remove_part\`, \`part_identify\`, \`load_project\`),
  background callbacks (\`bg_start(callback, interval_ms)\`, \`bg_stop()\`, \`bg_active()\`) and
  \`usb_audio_*\`. Its \`get_state()\` leaves out nets of fewer than two nodes and escapes net names.
- 5.7.0.13 has \`la_*\` and none of the above; its nets 50-59 have no name.

## Scripts
- script_run with code checks and saves a script in /python_scripts (the board's menu runs them
  too), then runs it with the jumperless functions already imported, \`__name__ == '__main__'\`, and
  a time limit (Ctrl-C at the end of it: wrap cleanup in \`try/finally\`). What it prints comes back.
- Scripts the board runs by itself (its menu's \`/\` file runner, \`boot.py\`) need no import either: the
  firmware's one MicroPython VM runs \`from jumperless import *\` when it starts and after a soft reset.
  Writing the line anyway is harmless.
- \`import time\`: \`time.sleep_ms(ms)\` or \`time.sleep(s)\` (seconds), \`time.ticks_ms()\`, \`time.ticks_diff(a, b)\`. Loops that wait should
  sleep: a pure-Python busy loop is hard to stop.
- Example, blink GPIO_1 five times:
  \`gpio_set_dir(1, 'OUTPUT')\` then \`for i in range(5): gpio_set(1, 'HIGH'); time.sleep_ms(200); gpio_set(1, 'LOW'); time.sleep_ms(200)\`

## Hazards
- The board cannot see wires or parts placed by hand: it can still be shorted externally.
- A script that loops in pure Python can only be stopped with Ctrl-C; blocking probe and button
  waits need a timeout. \`sys.exit()\` soft-resets: Python globals are cleared, wiring stays.
`;

/**
 * The reference's sections, by a short key, each with the one line a model picks it by (a trial
 * could not tell which of eleven bare names answers "how do I read ADC channel 0 in a script").
 */
const SECTIONS = {
  nodes: ['Nodes', 'node names and numbers: rows, rails, ADC/DAC, GPIO, Nano pins'],
  connections: ['Connections', 'connect, disconnect, nodes_clear, bridges and paths'],
  nets: ['Nets', 'nets, their names and colours'],
  measure: ['Supplies and measurement', 'dac_set, adc_get (read volts), current sensor, settling'],
  gpio: ['GPIO and PWM', 'gpio_set/get, direction, pull, pwm'],
  slots: ['Slots and state', 'get_state/set_state, saving and switching slots'],
  leds: ['LEDs and OLED', 'LED overlays, OLED text'],
  files: ['Files', 'open/read/write files on the board'],
  releases: ['Releases', 'what differs between firmware 5.7.0.13 and 5.7.11'],
  scripts: ['Scripts', 'imports, time and sleeps, running scripts, an example'],
  hazards: ['Hazards', 'what can harm the board or hang a script'],
} as const;

export type ApiSection = keyof typeof SECTIONS;
export const API_SECTIONS = Object.keys(SECTIONS) as [ApiSection, ...ApiSection[]];

/** One section of the reference, its heading included. */
export function apiSection(section: ApiSection): string {
  const heading = `## ${SECTIONS[section][0]}\n`;
  const start = API_REFERENCE.indexOf(heading);
  if (start < 0) return API_REFERENCE;
  const end = API_REFERENCE.indexOf('\n## ', start + heading.length);
  return API_REFERENCE.slice(start, end < 0 ? undefined : end + 1);
}

/** Words too common in a question to tell sections apart. */
const COMMON = new Set(
  'how what which the and for with from into can does use using get set value script board code python micropython jumperless function call'.split(
    ' ',
  ),
);

/** The sections a lookup answers with at most: enough for a question, small as a result. */
const MOST_SECTIONS = 2;
/** A further section comes too only when it scores this close to the best one. */
const CLOSE = 0.8;

/**
 * The sections that answer `topic`: a section's key or heading gives that section; otherwise its
 * words (a function name, "read ADC") score each section by the rarer words it holds, so `adc`
 * picks the measurement section over the node list that only names ADC0-ADC3.
 */
export function apiSectionsFor(topic: string): ApiSection[] {
  const wanted = topic.trim().toLowerCase();
  const named = API_SECTIONS.find((k) => k === wanted || SECTIONS[k][0].toLowerCase() === wanted);
  if (named) return [named];
  const words = [...new Set(wanted.match(/[a-z0-9_]+/g) ?? [])].filter(
    (w) => w.length >= 3 && !COMMON.has(w),
  );
  // A section's one line counts twice over its text: it says what the section is for.
  const texts = new Map(
    API_SECTIONS.map((k) => [k, `${SECTIONS[k][1]}\n${SECTIONS[k][1]}\n${apiSection(k)}`.toLowerCase()]),
  );
  const count = (text: string, word: string) => text.split(word).length - 1;
  const weight = new Map(
    words.map((w) => {
      const holding = API_SECTIONS.filter((k) => count(texts.get(k) ?? '', w) > 0).length;
      return [w, holding === 0 ? 0 : Math.log(1 + API_SECTIONS.length / holding)];
    }),
  );
  const scored = API_SECTIONS.map((k) => {
    const text = texts.get(k) ?? '';
    const score = words.reduce((s, w) => s + (weight.get(w) ?? 0) * Math.log(1 + count(text, w)), 0);
    return { k, score };
  })
    .filter((x) => x.score > 0)
    .sort((x, y) => y.score - x.score);
  const best = scored[0]?.score ?? 0;
  return scored
    .slice(0, MOST_SECTIONS)
    .filter((x) => x.score >= CLOSE * best)
    .map((x) => x.k);
}

/** Every section but the ones shown, one line each, so the next lookup needs no guess. */
export function otherSections(shown: readonly ApiSection[]): string {
  return API_SECTIONS.filter((k) => !shown.includes(k))
    .map((k) => `- ${k}: ${SECTIONS[k][1]}`)
    .join('\n');
}
