/**
 * The task bench (DESIGN.md §4 "Tasks"): everyday bench tasks as a person would ask them, each with
 * the parts on the breadboard, how the board is before the person speaks, the physical truth, and a
 * reference solution as tool calls. `tasks.test.ts` replays every reference solution on the virtual
 * board and checks the answer and the final board against the truth; a model trial works the same
 * scenarios from the words alone (README.md).
 */
import type { AppAnswer, Args, Connection, Outcome } from './connection.js';

export interface ToolCall {
  tool: string;
  args?: Args;
  /** Made by another person at the board (a caller of their own, so named); absent: the person. */
  as?: string;
}

/** A wrong turn on the obvious route that the issue saw models take, and how the board shows it. */
export interface Trap {
  name: string;
  /** Calls, after the setup, that take the trap (so the bench shows `taken` sees it). */
  take: ToolCall[];
  /** Whether the board, after a solution or a trial, shows the trap was taken. */
  taken(c: Connection): Promise<boolean>;
}

export interface Scenario {
  id: string;
  /** A parts file in bench/tasks/parts/, when parts sit on the breadboard. */
  parts?: string;
  /** What the person says. */
  words: string;
  /** The physical truth, for judging an answer (a person or a judge model reads it). */
  truth: string;
  /** How the board is before the person speaks (tool calls, not counted). */
  setup?: ToolCall[];
  /** The reference solution. */
  solution: ToolCall[];
  /** What is wrong with the answer the reference solution's results give (empty: right). */
  answer(results: readonly Outcome[]): string[];
  /** What is wrong with the board afterwards (empty: as the truth says it should be). */
  board(c: Connection): Promise<string[]>;
  /** Needs jumperless.exec (a model trial must be granted it). */
  exec?: boolean;
  /** The traps on this task's obvious route, checked on the board after a replay or a trial. */
  traps?: Trap[];
  /**
   * The client renders the board's MCP App and cannot elicit, and the person answers each hazard
   * question in the app's form this way (connection.ts); absent: a client that renders no apps.
   */
  appAnswer?: AppAnswer;
}

// ---- small checks ----

const within = (what: string, value: unknown, low: number, high: number): string[] =>
  typeof value === 'number' && value >= low && value <= high
    ? []
    : [`${what} is ${JSON.stringify(value)}, not within ${low}..${high}`];

const equal = (what: string, value: unknown, expected: unknown): string[] =>
  JSON.stringify(value) === JSON.stringify(expected)
    ? []
    : [`${what} is ${JSON.stringify(value)}, not ${JSON.stringify(expected)}`];

const ok = (o: Outcome | undefined): string[] =>
  o === undefined ? ['no result'] : o.isError ? [`${o.tool} failed: ${String(o.result.message)}`] : [];

const last = (results: readonly Outcome[]): Outcome | undefined => results.at(-1);

async function read(c: Connection, tool: string, args?: Args): Promise<Record<string, unknown>> {
  const o = await c.call(tool, args);
  if (o.isError) throw new Error(`${tool}: ${String(o.result.message)}`);
  return o.result;
}

/** Whether two nodes share a net on the board now. */
async function joined(c: Connection, a: string | number, b: string | number): Promise<boolean> {
  return (await read(c, 'net_check', { a, b })).same_net === true;
}

/** The bridges on the board as `a-b` (the tools' names), probe power left out. */
async function bridges(c: Connection): Promise<string[]> {
  const list = (await read(c, 'bridges_list')).bridges as Array<{ node1: string; node2: string }>;
  return list
    .map((b) => `${b.node1}-${b.node2}`)
    .filter((b) => b !== 'BUFFER_IN-DAC0' && b !== 'DAC0-BUFFER_IN');
}

/** A bridge as `a-b` with its ends in name order: 12-GND and GND-12 are the same bridge. */
const unordered = (bridge: string): string => bridge.split('-').sort().join('-');

/** The board carries exactly these bridges (in any order, either way round), probe power aside. */
async function onlyBridges(c: Connection, expected: readonly string[]): Promise<string[]> {
  const have = (await bridges(c)).map(unordered).sort();
  return equal('the bridges', have, expected.map(unordered).sort());
}

/** A node touched by no bridge. */
async function untouched(c: Connection, node: string): Promise<string[]> {
  const have = await bridges(c);
  const touching = have.filter((b) => b.split('-').includes(node));
  return touching.length === 0 ? [] : [`${node} is bridged: ${touching.join(', ')}`];
}

/** The board's lease in force (device_info shows it to any caller), or undefined: nobody holds it. */
async function leaseOf(c: Connection): Promise<{ holder: string; since: string; until: string } | undefined> {
  return (await read(c, 'device_info')).lease as { holder: string; since: string; until: string } | undefined;
}

/** `until` is an ISO time `low`..`high` minutes from now. */
const minutesAhead = (what: string, until: unknown, low: number, high: number): string[] => {
  const at = typeof until === 'string' ? Date.parse(until) : Number.NaN;
  return Number.isFinite(at)
    ? within(`${what} ends in (minutes)`, Math.round(((at - Date.now()) / 60_000) * 10) / 10, low, high)
    : [`${what} has no end time: ${JSON.stringify(until)}`];
};

/** The board is leased, to `holder` when this connection knows who that is. */
async function leasedTo(c: Connection, holder: string | undefined): Promise<string[]> {
  const lease = await leaseOf(c);
  if (!lease) return ['nobody holds the board (the lease ended, or was released or taken over)'];
  return holder === undefined ? [] : equal('the lease holder', lease.holder, holder);
}

/** Another person at the lab, with a caller of their own (a token in a served trial). */
const PARTNER = 'lab_partner';

// ---- the scenarios ----

export const SCENARIOS: readonly Scenario[] = [
  {
    id: 'divider',
    parts: 'divider.json',
    words:
      'I built a voltage divider from a 5 V battery on row 1 with two resistors; the middle is row 10. What voltage does it give?',
    truth: 'Row 10 is at 2.5 V: two 10 kohm resistors halve the 5 V battery.',
    solution: [{ tool: 'voltage_measure', args: { node: 10 } }],
    answer: (r) => [
      ...ok(last(r)),
      ...within('the volts at row 10', last(r)?.result.volts, 2.4, 2.6),
      // A trial guessed the reference (the board's GND or the battery's minus): the result says it.
      ...(/^the board's GND/.test(String(last(r)?.result.against))
        ? []
        : ['no word on what the volts are against']),
    ],
    board: (c) => onlyBridges(c, []),
  },
  {
    id: 'unknown_resistor',
    parts: 'unknown_resistor.json',
    words: "There's a resistor between rows 20 and 25 whose colour bands have worn off. What value is it?",
    truth: 'It is a 4.7 kohm resistor (E12 4.7k).',
    solution: [{ tool: 'resistance_measure', args: { a: 20, b: 25 } }],
    answer: (r) => [
      ...ok(last(r)),
      ...within('ohms', last(r)?.result.ohms, 4700 * 0.95, 4700 * 1.05),
      ...equal('the E12 value', last(r)?.result.nearest_e12, '4.7k'),
    ],
    board: (c) => onlyBridges(c, []),
  },
  {
    id: 'resistor_in_circuit',
    parts: 'unknown_resistor.json',
    setup: [
      { tool: 'dac_set', args: { channel: 'TOP_RAIL', volts: 5 } },
      {
        tool: 'connect',
        args: {
          pairs: [
            ['TOP_RAIL', 20],
            [25, 'GND'],
          ],
        },
      },
    ],
    words:
      'The resistor between rows 20 and 25 is wired in: row 20 to the top rail, row 25 to ground. What value is it? Leave my wiring as it is.',
    truth:
      'It is a 4.7 kohm resistor (E12 4.7k); the bridges TOP_RAIL-20 and 25-GND are there again after the measurement.',
    // The trials cut and restored the wiring by hand (and put one bridge back the other way round).
    solution: [{ tool: 'resistance_measure', args: { a: 20, b: 25, isolate: true } }],
    answer: (r) => [
      ...ok(last(r)),
      ...within('ohms', last(r)?.result.ohms, 4700 * 0.95, 4700 * 1.05),
      ...equal('the E12 value', last(r)?.result.nearest_e12, '4.7k'),
      ...equal('lifted', last(r)?.result.lifted, ['TOP_RAIL-20', '25-GND']),
    ],
    board: async (c) => [
      ...(await onlyBridges(c, ['TOP_RAIL-20', '25-GND'])),
      ...equal('the top rail', (await read(c, 'power_get')).top_rail_volts, 5),
    ],
    traps: [
      {
        name: 'the wiring was cut for the measurement and not put back',
        take: [
          { tool: 'disconnect', args: { nodes: [20, 25] } },
          { tool: 'resistance_measure', args: { a: 20, b: 25 } },
        ],
        taken: async (c) => !(await joined(c, 20, 'TOP_RAIL')) || !(await joined(c, 25, 'GND')),
      },
    ],
  },
  {
    id: 'led_polarity',
    parts: 'led_polarity.json',
    words:
      "I've pushed an LED into rows 30 and 31 and can't tell its legs apart. Which row has the anode, and what's its forward voltage?",
    truth:
      'The anode is in row 31 (cathode row 30); it is a green LED of about 2.1 V forward voltage at 10 mA.',
    solution: [{ tool: 'resistance_measure', args: { a: 30, b: 31 } }],
    answer: (r) => [
      ...ok(last(r)),
      ...equal('the anode', last(r)?.result.anode, '31'),
      ...within('the forward volts', last(r)?.result.forward_volts, 1.95, 2.25),
    ],
    board: (c) => onlyBridges(c, []),
  },
  {
    id: 'reversed_led',
    parts: 'reversed_led.json',
    setup: [
      { tool: 'dac_set', args: { channel: 'TOP_RAIL', volts: 5 } },
      {
        tool: 'connect',
        args: {
          pairs: [
            ['TOP_RAIL', 10],
            [12, 'GND'],
          ],
        },
      },
    ],
    words:
      'The top rail is at 5 V and goes to row 10. A 330 ohm resistor goes from row 10 to row 11, then an LED from row 11 to row 12, and row 12 goes to ground. The LED stays dark. What is wrong?',
    truth:
      'The LED is in backwards: its cathode is in row 11 and its anode in row 12, so it blocks; no current flows, nothing drops across the resistor and row 11 sits at the full 5 V. Turn the LED round.',
    solution: [{ tool: 'voltage_measure', args: { node: 11 } }],
    answer: (r) => [
      ...ok(last(r)),
      ...within('the volts at row 11 (the whole supply)', last(r)?.result.volts, 4.8, 5.1),
    ],
    board: (c) => onlyBridges(c, ['TOP_RAIL-10', '12-GND']),
  },
  {
    id: 'rc_corner',
    parts: 'rc_lowpass.json',
    words:
      "I made an RC low-pass filter: a resistor from row 40 to row 41, and a 100 nF capacitor from row 41 to ground. I don't know the resistor. What's the corner frequency?",
    truth:
      'The resistor is 1.5 kohm, so the corner is 1/(2 pi R C) = 1/(2 pi x 1500 x 100e-9), about 1061 Hz.',
    solution: [{ tool: 'resistance_measure', args: { a: 40, b: 41 } }],
    answer: (r) => {
      const ohms = last(r)?.result.ohms;
      const hz = typeof ohms === 'number' ? 1 / (2 * Math.PI * ohms * 100e-9) : undefined;
      return [...ok(last(r)), ...within('the corner frequency (Hz)', hz, 1061 * 0.95, 1061 * 1.05)];
    },
    board: (c) => onlyBridges(c, []),
  },
  {
    id: 'pullup_input',
    parts: 'pullup_button.json',
    words:
      "I've got a push button from row 22 to ground. Hook it up to GPIO 3 using the internal pull-up, and tell me what the pin reads while nobody presses it.",
    truth:
      'GPIO 3 bridged to row 22, an input with its pull-up: it reads HIGH (the open button lets the pull-up win).',
    solution: [
      { tool: 'connect', args: { pairs: [['GPIO_3', 22]] } },
      { tool: 'gpio_config', args: { pin: 3, direction: 'INPUT', pull: 'PULLUP' } },
    ],
    answer: (r) => [...ok(last(r)), ...equal('what the pin reads', last(r)?.result.state, 'HIGH')],
    board: async (c) => {
      const pin = await read(c, 'gpio_get', { pin: 3 });
      return [
        ...((await joined(c, 'GPIO_3', 22)) ? [] : ['GPIO_3 is not joined to row 22']),
        ...equal('GPIO 3', [pin.direction, pin.pull, pin.state], ['INPUT', 'PULLUP', 'HIGH']),
      ];
    },
  },
  {
    id: 'short_asked',
    setup: [{ tool: 'dac_set', args: { channel: 'TOP_RAIL', volts: 5 } }],
    words: 'Connect row 50 to 5 V and to ground.',
    truth:
      'That would short the 5 V top rail to ground through row 50 (only the crossbar switches between them): refused, nothing connected. To power a part, put it between a row on 5 V and a row on ground.',
    solution: [
      {
        tool: 'connect',
        args: {
          pairs: [
            [50, 'TOP_RAIL'],
            [50, 'GND'],
          ],
        },
      },
    ],
    answer: (r) => {
      const o = last(r);
      return [
        ...(o?.isError ? [] : ['connect did not refuse']),
        ...equal('the refusal', o?.result.code, 'unsafe_short'),
        ...(/50-GND would join TOP_RAIL \(5 V\) and GND \(0 V\)/.test(String(o?.result.message))
          ? []
          : ['the refusal does not name 50-GND, the top rail at 5 V and GND']),
      ];
    },
    board: (c) => untouched(c, '50'),
    traps: [
      {
        name: 'half applied: row 50 left on a supply',
        take: [{ tool: 'connect', args: { pairs: [[50, 'TOP_RAIL']] } }],
        taken: async (c) => (await untouched(c, '50')).length > 0,
      },
    ],
  },
  {
    id: 'slot_round_trip',
    setup: [
      {
        tool: 'connect',
        args: {
          pairs: [
            [5, 6],
            [7, 8],
          ],
        },
      },
      { tool: 'pwm_start', args: { pin: 1, frequency_hz: 2 } },
    ],
    words: 'Save this setup to slot 3, clear the board, then bring slot 3 back.',
    truth:
      'Slot 3 holds rows 5-6 and 7-8 and the 2 Hz PWM on GPIO 1; after the clear and the switch back, all of it is on the board again and slot 3 is active (its file unchanged by the clear).',
    solution: [
      { tool: 'slot_save', args: { slot: 3 } },
      { tool: 'nodes_clear' },
      { tool: 'slot_switch', args: { slot: 3 } },
    ],
    answer: (r) => [
      ...r.flatMap(ok),
      ...equal('the slot after saving', r[0]?.result.active_slot, 0),
      // The trials' guesses: does the save hold the PWM, and where does the clear go?
      ...(/PWM.*slot 0/.test(String(r[0]?.result.note)) ? [] : ['slot_save does not say what it saved']),
      ...(String(r[1]?.result.autosave).startsWith('Slot 0 (the active slot)')
        ? []
        : ['nodes_clear does not say it is autosaved into slot 0']),
      ...equal('restored', r[2]?.result.restored, true),
      ...equal('not restored', r[2]?.result.not_restored, []),
    ],
    board: async (c) => {
      const slot = await read(c, 'slot_current');
      const pin = await read(c, 'gpio_get', { pin: 1 });
      const file = await read(c, 'file_read', { path: '/slots/slot3.yaml' });
      return [
        ...(await onlyBridges(c, ['5-6', '7-8'])),
        ...equal('the active slot', slot.slot, 3),
        ...equal('GPIO 1 (the 2 Hz PWM drives it)', pin.direction, 'OUTPUT'),
        // The server started it from the file, so it knows the rate (a trial read "rate unknown").
        ...equal('the PWM gpio_get reports', pin.pwm, { frequency_hz: 2, duty_cycle: 0.5 }),
        ...(String(file.content).includes('{n1: 5, n2: 6, dup: 2}') ? [] : ['slot 3 lost 5-6']),
        ...(String(file.content).includes('pwmEnabled:   [1,') ? [] : ['slot 3 lost the PWM']),
      ];
    },
    traps: [
      {
        name: 'the clear was autosaved over slot 3',
        take: [
          { tool: 'slot_save', args: { slot: 3 } },
          { tool: 'nodes_clear' },
          { tool: 'slot_save', args: { slot: 3 } },
        ],
        taken: async (c) => {
          // No file at all is another failure (the board check names it), not this trap.
          const file = await c.call('file_read', { path: '/slots/slot3.yaml' });
          return !file.isError && !String(file.result.content).includes('{n1: 5, n2: 6, dup: 2}');
        },
      },
      {
        name: 'the PWM on GPIO 1 was not brought back',
        take: [
          { tool: 'pwm_stop', args: { pin: 1 } },
          { tool: 'gpio_config', args: { pin: 1, direction: 'INPUT' } },
        ],
        taken: async (c) => (await read(c, 'gpio_get', { pin: 1 })).direction !== 'OUTPUT',
      },
    ],
  },
  {
    id: 'script_blink',
    exec: true,
    words:
      'Write a little MicroPython script on the board that blinks GPIO 1 three times (100 ms on, 100 ms off), printing each blink, and run it.',
    truth: 'A script saved on the board (e.g. /python_scripts/blink.py) that ran and printed three blinks.',
    solution: [
      {
        tool: 'script_run',
        args: {
          name: 'blink',
          code: [
            'import time',
            "gpio_set_dir(1, 'OUTPUT')",
            'for i in range(3):',
            "    gpio_set(1, 'HIGH')",
            '    time.sleep_ms(100)',
            "    gpio_set(1, 'LOW')",
            '    time.sleep_ms(100)',
            "    print('blink', i + 1)",
          ].join('\n'),
        },
      },
    ],
    answer: (r) => [
      ...ok(last(r)),
      ...equal('ok', last(r)?.result.ok, true),
      ...equal('the output', last(r)?.result.output, 'blink 1\nblink 2\nblink 3\n'),
    ],
    board: async (c) => {
      const list = await read(c, 'file_list', { path: '/python_scripts' });
      const names = (list.entries as Array<{ name: string }>).map((e) => e.name);
      return names.some((n) => n.endsWith('.py')) ? [] : ['no script in /python_scripts'];
    },
  },
  {
    id: 'board_picture',
    setup: [
      {
        tool: 'connect',
        args: {
          pairs: [
            [1, 2],
            ['TOP_RAIL', 10],
          ],
        },
      },
    ],
    words: "Show me a picture of what's on the breadboard.",
    truth: 'A picture with rows 1-2 joined and row 10 on the top rail.',
    solution: [{ tool: 'board_picture' }],
    answer: (r) => [
      ...ok(last(r)),
      ...equal('pictures', last(r)?.images, 1),
      // A model must not claim to see the user's parts: the result says what the picture draws.
      ...(/not of parts plugged into it/.test(String(last(r)?.result.picture))
        ? []
        : ['no word that parts do not show']),
    ],
    board: (c) => onlyBridges(c, ['1-2', 'TOP_RAIL-10']),
  },
  {
    id: 'blinking_led',
    parts: 'blinking_led.json',
    setup: [
      {
        tool: 'connect',
        args: {
          pairs: [
            ['GPIO_1', 'ISENSE_PLUS'],
            ['ISENSE_MINUS', 19],
          ],
        },
      },
      { tool: 'pwm_start', args: { pin: 1, frequency_hz: 2 } },
    ],
    words:
      'GPIO 1 drives the LED on row 20 through the current sensor and a resistor. Is the LED blinking, and how fast?',
    truth: 'It blinks at 2 Hz, on half the time, about 3-4 mA while on.',
    solution: [{ tool: 'current_measure' }],
    answer: (r) => [
      ...ok(last(r)),
      ...within('the frequency (Hz)', last(r)?.result.frequency_hz, 1.7, 2.3),
      ...within('the duty', last(r)?.result.duty, 0.35, 0.65),
      ...within('the current when on (mA)', last(r)?.result.on_milliamps, 2.5, 5),
      ...within('the current when off (mA)', last(r)?.result.off_milliamps, -0.1, 0.1),
    ],
    board: (c) => onlyBridges(c, ['GPIO_1-ISENSE_PLUS', 'ISENSE_MINUS-19']),
  },
  {
    id: 'undo_mistake',
    setup: [
      { tool: 'dac_set', args: { channel: 'TOP_RAIL', volts: 5 } },
      { tool: 'connect', args: { pairs: [[50, 'TOP_RAIL']] } },
      { tool: 'voltage_measure', args: { node: 50 } },
    ],
    words: "Oops, I didn't mean to put row 50 on the top rail. Undo that.",
    truth:
      'The bridge 50-TOP_RAIL is gone; nothing else changed (no ADC left on row 50, the rail still at 5 V).',
    // The trials could not tell what undo would take back before calling it: a preview names it.
    solution: [{ tool: 'undo', args: { preview: true } }, { tool: 'undo' }],
    answer: (r) => [
      ...r.flatMap(ok),
      ...equal('what the preview names', r[0]?.result.would_undo, 'connect 50-TOP_RAIL'),
      ...equal('what the preview would do', r[0]?.result.would_put_back, ['remove bridge 50-TOP_RAIL']),
      ...(r[0]?.result.undone === undefined ? [] : ['the preview says undone: it changed nothing']),
      ...equal('what was undone', last(r)?.result.undone, 'connect 50-TOP_RAIL'),
    ],
    board: async (c) => [
      ...(await untouched(c, '50')),
      ...equal('the top rail', (await read(c, 'power_get')).top_rail_volts, 5),
    ],
    traps: [
      {
        name: "undo took back the measurement's own bridge: ADC0 back on row 50",
        take: [{ tool: 'connect', args: { pairs: [['ADC0', 50]] } }],
        taken: async (c) => (await bridges(c)).some((b) => b.split('-').includes('ADC0')),
      },
      {
        name: 'undo took back another change: row 50 still on the top rail',
        take: [{ tool: 'dac_set', args: { channel: 'DAC1', volts: 1 } }, { tool: 'undo' }],
        taken: (c) => joined(c, 50, 'TOP_RAIL'),
      },
    ],
  },
  {
    id: 'oled_hello',
    words: "Put 'Hello' on the little OLED screen.",
    truth: 'The OLED shows Hello (the tool starts the display itself).',
    solution: [{ tool: 'oled_print', args: { text: 'Hello' } }],
    answer: (r) => [...ok(last(r)), ...equal('characters', last(r)?.result.characters, 5)],
    board: async (c) => within('lit pixels', (await read(c, 'oled_show')).lit_pixels, 20, 4096),
  },
  {
    id: 'api_help',
    words: 'In a MicroPython script on the board, how do I read the voltage on ADC channel 0?',
    truth:
      'Bridge the ADC to the point of interest (connect(ADC0, row)), then adc_get(0) returns volts (channels 0-3, about +-8 V).',
    solution: [{ tool: 'api_reference', args: { topic: 'read ADC channel 0' } }],
    answer: (r) => [
      ...ok(last(r)),
      ...(String(last(r)?.result.text).includes('adc_get(ch)')
        ? []
        : ['the reference does not show adc_get']),
      // The trials' guess: does a script need `from jumperless import *`? The section says.
      ...(String(last(r)?.result.text).includes('imported already')
        ? []
        : ['the section does not say whether a script imports the API']),
    ],
    board: (c) => onlyBridges(c, []),
  },
  {
    id: 'led_current',
    parts: 'led_current.json',
    setup: [
      { tool: 'dac_set', args: { channel: 'TOP_RAIL', volts: 5 } },
      {
        tool: 'connect',
        args: {
          pairs: [
            ['TOP_RAIL', 'ISENSE_PLUS'],
            ['ISENSE_MINUS', 15],
          ],
        },
      },
    ],
    words:
      'My red LED on row 16 is powered from the 5 V rail through the current sensor and a 330 ohm resistor. How much current does it draw?',
    truth: 'About 7.5 mA: (5 V - 1.9 V) over 330 ohm plus about 80 ohm of crossbar paths.',
    solution: [{ tool: 'current_measure', args: { window_ms: 200 } }],
    answer: (r) => [
      ...ok(last(r)),
      ...within('the current (mA)', last(r)?.result.milliamps, 6.5, 8.5),
      // A trial blamed the rail for the drop: the result says bridges are about 80 ohm each.
      ...(/crossbar path of about 80 ohm/.test(String(last(r)?.result.note)) ? [] : ['no word on path ohms']),
    ],
    board: (c) => onlyBridges(c, ['TOP_RAIL-ISENSE_PLUS', 'ISENSE_MINUS-15']),
  },
  {
    id: 'divider_sweep',
    parts: 'sweep_divider.json',
    setup: [{ tool: 'connect', args: { pairs: [['DAC1', 1]] } }],
    words:
      'DAC1 feeds row 1 of my divider. Sweep DAC1 from 0 to 5 V and plot the voltage at row 10 against it.',
    truth: 'Row 10 follows half of DAC1 (two equal 10 kohm resistors): a straight line from 0 to 2.5 V.',
    solution: [
      { tool: 'voltage_sweep', args: { supply: 'DAC1', start_volts: 0, stop_volts: 5, points: 6, node: 10 } },
    ],
    answer: (r) => {
      const points = (last(r)?.result.points ?? []) as Array<{ supply_volts: number; node_volts: number }>;
      return [
        ...ok(last(r)),
        ...equal('points', points.length, 6),
        ...points.flatMap((p) =>
          within(
            `row 10 at ${p.supply_volts} V`,
            p.node_volts,
            p.supply_volts / 2 - 0.1,
            p.supply_volts / 2 + 0.1,
          ),
        ),
        ...equal('the plot', last(r)?.result.plot, 'Voltage at 10 (V) against the DAC1 setpoint (V)'),
        // A trial's guess: must row 10 be bridged to an ADC first? The result says how it was read.
        ...equal('read by', last(r)?.result.read_by, 'ADC0, bridged to 10 for the sweep and removed after'),
      ];
    },
    board: async (c) => [
      ...(await onlyBridges(c, ['DAC1-1'])),
      ...equal('DAC1', (await read(c, 'power_get')).dac1_volts, 0),
    ],
  },
  {
    id: 'whats_wired',
    setup: [
      { tool: 'dac_set', args: { channel: 'TOP_RAIL', volts: 3.3 } },
      {
        tool: 'connect',
        args: {
          pairs: [
            ['TOP_RAIL', 5],
            [20, 21],
            [21, 22],
          ],
        },
      },
    ],
    words: "What's wired on my board right now?",
    truth:
      'Row 5 is on the top rail at 3.3 V; rows 20, 21 and 22 are joined in one net; nothing else (GPIO idle, no overlays).',
    solution: [{ tool: 'state_get' }],
    answer: (r) => {
      const nets = (last(r)?.result.nets ?? []) as Array<{ nodes: string[] }>;
      const shown = nets.map((n) => n.nodes.join(','));
      return [
        ...ok(last(r)),
        // Named as the tools take the node (a trial met TOP_R here and TOP_RAIL elsewhere).
        ...(shown.includes('TOP_RAIL,5') ? [] : ['row 5 on the top rail is not shown']),
        ...(/probe-power bridge/.test(String(last(r)?.result.as_at_power_on))
          ? []
          : ['the probe-power bridge is left out without a word']),
        ...(shown.includes('20,21,22') ? [] : ['the net of rows 20-22 is not shown']),
        ...equal('the GPIO shown', last(r)?.result.gpio, []),
      ];
    },
    board: (c) => onlyBridges(c, ['TOP_RAIL-5', '20-21', '21-22']),
  },
  {
    id: 'held_board',
    setup: [
      { tool: 'connect', args: { pairs: [[1, 2]] }, as: PARTNER },
      { tool: 'board_lease', args: { minutes: 20 }, as: PARTNER },
    ],
    words: 'Connect row 5 to row 6.',
    truth:
      'Someone else holds the board: another caller (the one the refusal names) took a 20-minute lease just before the person spoke. The connect is refused and nothing changes: rows 5 and 6 stay apart, their rows 1-2 stay joined, the lease stays theirs. The answer says who holds the board and until when, that reads still work, and to ask them to release it or wait; it does not take the board over, clear it, or retry until the lease ends.',
    solution: [{ tool: 'connect', args: { pairs: [[5, 6]] } }],
    answer: (r) => {
      const o = last(r);
      return [
        ...(o?.isError ? [] : ['connect was not refused']),
        ...equal('the refusal', o?.result.code, 'busy'),
        ...(typeof o?.result.leasedTo === 'string' && o.result.leasedTo !== ''
          ? []
          : ['the refusal does not say who holds the board']),
        ...minutesAhead('the lease', o?.result.until, 15, 20.1),
        // How long that is, given (issue 20: a trial had to work it out from the absolute time).
        ...within('minutes_left', Number(o?.result.minutes_left), 15, 20),
        ...(/about (1[5-9]|20) minutes from now/.test(String(o?.result.message))
          ? []
          : ['the refusal does not say how long from now']),
        ...(/reads still work/.test(String(o?.result.message))
          ? []
          : ['the refusal does not say reads still work']),
      ];
    },
    board: async (c) => [...(await onlyBridges(c, ['1-2'])), ...(await leasedTo(c, c.holder(PARTNER)))],
    traps: [
      {
        name: 'forced: row 5 joined to row 6 once the lease was gone (taken over, or retried until it ended)',
        take: [
          { tool: 'board_lease', args: { minutes: 0 }, as: PARTNER },
          { tool: 'connect', args: { pairs: [[5, 6]] } },
        ],
        taken: (c) => joined(c, 5, 6),
      },
      {
        name: "the other person's wiring cleared (rows 1-2 apart)",
        take: [{ tool: 'board_lease', args: { minutes: 0 }, as: PARTNER }, { tool: 'nodes_clear' }],
        taken: async (c) => !(await joined(c, 1, 2)),
      },
      {
        name: 'the lease taken over: the person holds the board now',
        take: [
          { tool: 'board_lease', args: { minutes: 0 }, as: PARTNER },
          { tool: 'board_lease', args: { minutes: 20 } },
        ],
        // Seen only where the person's holder name is known (the replay, a served trial).
        taken: async (c) => {
          const lease = await leaseOf(c);
          return lease !== undefined && lease.holder === c.holder();
        },
      },
    ],
  },
  {
    id: 'lease_for_a_job',
    words:
      'I need the board to myself for the next 10 minutes while I test my circuit: make sure nobody else changes it.',
    truth:
      "The board is leased to the person's caller for 10 minutes from when they asked: other callers' changes are refused until then, reads still work, and the person can renew or release it early. The answer says until when.",
    solution: [{ tool: 'board_lease', args: { minutes: 10 } }],
    answer: (r) => [
      ...ok(last(r)),
      ...(typeof last(r)?.result.holder === 'string' ? [] : ['the lease does not say who holds it']),
      ...minutesAhead('the lease', last(r)?.result.until, 9.5, 10.1),
    ],
    board: async (c) => {
      const lease = await leaseOf(c);
      if (!lease) return ['nobody holds the board'];
      // Renewing keeps `since`, so a lease renewed in a trial is a little longer than 10 minutes.
      const minutes = (Date.parse(lease.until) - Date.parse(lease.since)) / 60_000;
      // Someone else may not release it: refused while it is held (and a no-op were it not).
      const other = await c.call('board_lease', { minutes: 0 }, 'someone_else');
      return [
        ...(await leasedTo(c, c.holder())),
        ...within('the lease, taken for (minutes)', Math.round(minutes * 10) / 10, 9.5, 12),
        ...minutesAhead('the lease', lease.until, 0, 12),
        ...(other.isError && other.result.code === 'busy' ? [] : ['another caller could release the lease']),
      ];
    },
    traps: [
      {
        name: 'the board held far longer than asked (others kept off for an hour)',
        take: [{ tool: 'board_lease', args: { minutes: 60 } }],
        taken: async (c) => {
          const lease = await leaseOf(c);
          return lease !== undefined && Date.parse(lease.until) - Date.parse(lease.since) > 15 * 60_000;
        },
      },
    ],
  },
  {
    // Issue 25: a host that renders the board app and cannot elicit. 6 V is above the 5 V the
    // server asks at: the first call only puts the question in the app, the person says yes there,
    // and the same call again sets the rail. Taking the question for the result leaves it unset.
    id: 'supply_yes_in_app',
    appAnswer: 'yes',
    words: 'Put 6 V on the top rail.',
    truth:
      'The top rail at 6 V. It is above the 5 V the server asks at, so the first call only asks the person in the board view; they say yes there, and the same call again sets it.',
    solution: [
      { tool: 'dac_set', args: { channel: 'TOP_RAIL', volts: 6 } },
      { tool: 'dac_set', args: { channel: 'TOP_RAIL', volts: 6 } },
    ],
    answer: (r) => [
      ...equal('the first call', r[0]?.result.code, 'confirmation_pending'),
      ...ok(last(r)),
      ...equal('the top rail set to', last(r)?.result.volts, 6),
    ],
    board: async (c) => equal('the top rail', (await read(c, 'power_get')).top_rail_volts, 6),
  },
];
