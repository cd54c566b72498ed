/**
 * Heap limits: every tool of the catalog at its largest inputs, on the biggest board state the
 * firmware allows (128 bridges, 59 nets with 31-character names and user colours, 8 overlays of
 * 30x10 with 31-character names, full slot files), on one virtual board.
 *
 * A board without PSRAM gives MicroPython 96000 bytes, of which about 58 KB are free once the
 * server's helpers are in; a job that needs more fails there with MemoryError. Each case checks
 * two things:
 * - the tool does not fail with MemoryError on the virtual board;
 * - no board job it sends holds more than the board can: its code at most JOB_CODE_MAX characters,
 *   and twice its code (the source, then its parse tree and bytecode) plus its result, counted as
 *   MicroPython objects, at most JOB_HELD_MAX bytes (the free heap less 10 KB for the compiler, the
 *   result's streaming and fragmentation). This second check is what catches a tool that would
 *   fail on a board: the virtual board's WebAssembly MicroPython collects garbage only between
 *   jobs and can add heap areas once its C heap has grown, so a job too big for a board may pass.
 *
 * The waits that block for a person (probe_wait, button_wait, ask_user) run with their smallest
 * timeout instead. python_exec runs the user's code as is: at the size its description says fits
 * without PSRAM it must succeed; at its schema maximum a MemoryError is its documented answer.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interceptBoard } from '../../test/support/interceptBoard.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { MAX_BRIDGES, OVERLAY_COLS, OVERLAY_ROWS } from '../board/limits.js';
import type { AnyTool } from '../core/toolDefinition.js';
import type { Board } from '../device/board.js';
import { CODE_MAX_CHARS } from './exec.js';
import { READ_MAX_BYTES, WRITE_MAX_BYTES } from './files.js';
import { catalog } from './index.js';
import { OLED_TEXT_MAX } from './oled.js';
import { SCRIPT_MAX_BYTES } from './scripts.js';
import { WOKWI_MAX_CHARS } from './wokwi.js';

let h: ToolHarness;
/** gc.mem_free() on the board once the helpers are primed. */
let freeAtStart = 0;
/** Largest job code, in characters (a file_write chunk is 8 KB of hex). */
const JOB_CODE_MAX = 12 * 1024;
let JOB_HELD_MAX = 0;
const RESULT_MAX = 50_000;
const IMAGE_MAX = 200 * 1024;

const tool = (name: string): AnyTool => {
  const found = catalog.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

// ---- the biggest board state ----

const rows = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);
/**
 * Nodes for 54 user nets (the firmware's most: 60 less GND, the rails, the DACs and one it keeps):
 * rows 1-58 (59 and 60 stay free for resistance_measure), the Nano header, GPIO, UART, the fake
 * GPIO nodes and ADC4; ADC0-3, DAC1 and ISENSE stay free for the measurements.
 */
const NODES = [
  ...rows(1, 58),
  ...rows(70, 83),
  ...rows(85, 93),
  ...rows(131, 138),
  116,
  117,
  ...rows(150, 181),
  114,
];
/**
 * 52 two-node nets, a complete net of 10 nodes (45 bridges) and one of 8 (28), and two more nodes
 * on GND: with the probe-power bridge the board already has, 128 bridges in 59 nets.
 */
function fullPairs(): number[][] {
  const pairs: number[][] = [];
  for (let i = 0; i < 104; i += 2) pairs.push([NODES[i] as number, NODES[i + 1] as number]);
  for (const [from, size] of [
    [104, 10],
    [114, 8],
  ] as const) {
    const clique = NODES.slice(from, from + size);
    for (let i = 0; i < size; i++)
      for (let j = i + 1; j < size; j++) pairs.push([clique[i], clique[j]] as number[]);
  }
  for (const n of NODES.slice(122, 124)) pairs.push([100, n]);
  return pairs;
}
const PAIRS = fullPairs();

const overlayName = (k: number): string => `overlay ${k} abcdefghijklmnopqrstuvw`.slice(0, 31);
/** The whole canvas in one colour, as overlay_set paints it. */
const fullOverlay = (k: number) => ({
  name: overlayName(k),
  x_col: 1,
  y_row: 1,
  width: OVERLAY_COLS,
  height: OVERLAY_ROWS,
  color: `#${((k * 48271 + 0x101010) % 0xffffff).toString(16).padStart(6, '0')}`,
});
/**
 * The heaviest overlay a board can hold: the whole canvas, every pixel another colour. Our tools
 * paint one colour, but a board's own scripts may leave such overlays for the tools to read.
 */
const putMottledOverlay = (k: number) => {
  const colors = Array.from(
    { length: OVERLAY_ROWS * OVERLAY_COLS },
    (_, i) => ((k * 300 + i) * 48271 + 0x101010) % 0xffffff,
  );
  return h.python(
    `overlay_set('${overlayName(k)}', 1, 1, ${OVERLAY_ROWS}, ${OVERLAY_COLS}, [${colors.join(',')}])`,
  );
};

/** Clears the board, then makes the biggest state through the tools where they can. */
async function buildFullBoard(): Promise<void> {
  await h.python('nodes_clear()');
  await h.python('connect(BUFFER_IN, DAC0, 0)');
  const { result } = await h.run<{ results: Array<{ status: string }> }>(tool('connect'), { pairs: PAIRS });
  expect(result.results.filter((r) => r.status === 'table_full' || r.status === 'refused')).toEqual([]);
  // 31-character names and user colours on every net, GND and the rails included.
  await h.client.exec(
    "for i in range(1, get_num_nets()):\n    set_net_name(i, ('net %02d ' % i) + 'n' * 24)\n    set_net_color(i, 0x102030 + i)",
  );
  await h.python('overlay_clear_all()');
  for (let k = 0; k < 8; k++) await putMottledOverlay(k);
  expect(await h.python('[get_num_bridges(), get_num_nets(), overlay_count()]')).toEqual([
    MAX_BRIDGES,
    60,
    8,
  ]);
}

// ---- metering the jobs a tool sends ----

/** Bytes a value takes on the board as MicroPython objects (32-bit, 16-byte blocks). */
function heapBytes(value: unknown): number {
  const blocks = (n: number) => Math.ceil(n / 16) * 16;
  if (typeof value === 'string') return 16 + blocks(Buffer.byteLength(value) + 1);
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 2 ** 30 ? 0 : 16;
  if (value === null || typeof value !== 'object') return 0;
  if (Array.isArray(value))
    return 16 + blocks(4 * value.length) + value.reduce((s: number, x) => s + heapBytes(x), 0);
  const entries = Object.entries(value);
  return 32 + blocks(16 * entries.length) + entries.reduce((s, [k, x]) => s + heapBytes(k) + heapBytes(x), 0);
}

interface Job {
  code: string;
  held: number;
}

/** The harness's board, writing down each job's code and what the board held for it. */
function metered(client: Board, jobs: Job[]): Board {
  return interceptBoard(client, {
    call: async (expression, options, inner) => {
      const result = await inner.call(expression, options);
      jobs.push({ code: expression, held: 2 * expression.length + heapBytes(result) });
      return result;
    },
    script: async (code, options, inner) => {
      const result = await inner.script(code, options);
      // A script streams its list one item at a time (_jlh.outs): the board holds the largest.
      const items = Array.isArray(result) ? result : [result];
      jobs.push({ code, held: 2 * code.length + Math.max(0, ...items.map(heapBytes)) });
      return result;
    },
  });
}

const mentionsMemoryError = (error: unknown): boolean => {
  const e = error as { message?: unknown; details?: unknown; options?: { details?: unknown } };
  return /MemoryError/.test(
    `${String(e?.message)} ${JSON.stringify(e?.details ?? e?.options?.details ?? {})}`,
  );
};

/** Tools run so far, to check that every tool of the catalog ran. */
const ran = new Set<string>();

/**
 * Runs a tool through the metered board; fails on MemoryError or an oversized job. `ok`: the tool
 * must succeed (its heavy path ran); otherwise a refusal for another reason is fine.
 */
async function runAtMax(
  name: string,
  args: unknown,
  ok = true,
): Promise<Record<string, unknown> | undefined> {
  ran.add(name);
  const jobs: Job[] = [];
  let result: Record<string, unknown> | undefined;
  try {
    const run = await h.run(tool(name), args, { board: metered(h.client, jobs) });
    result = run.result;
    // Results go into a model's context: none over 50 KB, no picture over 200 KB, even here.
    expect(Buffer.byteLength(JSON.stringify(result)), `${name}'s result`).toBeLessThan(RESULT_MAX);
    for (const image of run.images) {
      expect(Buffer.from(image.data, 'base64').length, `${name}'s image`).toBeLessThan(IMAGE_MAX);
    }
  } catch (error) {
    expect(mentionsMemoryError(error), `${name} ran out of heap: ${String((error as Error).message)}`).toBe(
      false,
    );
    if (ok) throw error;
  }
  for (const job of jobs) {
    const what = `${name}: ${job.code.slice(0, 60)}`;
    expect(job.code.length, `${what} sends too much code`).toBeLessThanOrEqual(JOB_CODE_MAX);
    expect(job.held, `${what} holds too much`).toBeLessThanOrEqual(JOB_HELD_MAX);
  }
  return result;
}

beforeAll(async () => {
  // The figures above are 5.7.0.13's (96000 bytes, 60 nets). 5.7.11 gives MicroPython 64 KB and
  // 58 nets: about 28.7 KB are free with the helpers in, and the full-board reads (snapshot 32 KB,
  // RAM state 39 KB, overlays 37 KB) do not fit it yet: an open problem of the tools, not hidden here.
  h = await startToolHarness({ firmware: '5.7.0.13' });
  await h.python('1');
  freeAtStart = Number((await h.client.exec('import gc\ngc.collect()\nprint(gc.mem_free())')).stdout.trim());
  JOB_HELD_MAX = freeAtStart - 10_000;
  await buildFullBoard();
}, 30_000);
afterAll(async () => h.close());

describe('every tool at its largest inputs on a full board', () => {
  it('starts with the free heap of a board without PSRAM, the helpers primed', () => {
    expect(freeAtStart).toBeGreaterThan(40_000);
    expect(freeAtStart).toBeLessThan(96_000);
  });

  it('reads the full board', async () => {
    await runAtMax('power_get', {});
    await runAtMax('bridges_list', {});
    await runAtMax('nets_list', {});
    await runAtMax('net_check', { a: 'FAKE_GP_IN_6', b: 'FAKE_GP_IN_7' });
    await runAtMax('overlay_list', {});
    await runAtMax('state_get', {});
    await runAtMax('board_picture', {});
    await runAtMax('slot_current', {});
    await runAtMax('slot_current', {});
    await runAtMax('device_info', {});
    await runAtMax('context_get', {});
    await runAtMax('clickwheel_read', {});
    await runAtMax('wavegen_status', {});
  });

  it('changes nets, supplies and GPIO on the full board', async () => {
    await runAtMax('net_set', { net: 59, name: `${'x'.repeat(30)}y` });
    await runAtMax('net_set', { node: 'FAKE_GP_IN_6', color: '#123456' });
    await runAtMax('dac_set', { channel: 'TOP_RAIL', volts: 1 });
    await runAtMax('gpio_get', { pin: 1 });
    await runAtMax('gpio_config', { pin: 1, pull: 'PULLUP' });
    await runAtMax('gpio_config', { pin: 1, direction: 'INPUT' });
    await runAtMax('gpio_config', { pin: 1, level: 'HIGH' }, false);
    await runAtMax('pwm_start', { pin: 3, frequency_hz: 1000, duty_cycle: 0.5 }, false);
    await runAtMax('pwm_stop', { pin: 3 });
    await runAtMax('gpio_config', { pin: 1, direction: 'INPUT' });
  });

  it('measures on the full board, with the most samples and the biggest sweep', async () => {
    await runAtMax('voltage_measure', { node: 'ADC0', samples: 64, settle_ms: 0 });
    // A free row needs a bridge the full table has no room for: refused, after the snapshot.
    await runAtMax('voltage_measure', { node: 59, samples: 64, settle_ms: 0 }, false);
    await runAtMax('current_measure', { window_ms: 1000 });
    await runAtMax('resistance_measure', { a: 59, b: 60, samples: 32 }, false);
    await runAtMax('voltage_sweep', {
      supply: 'TOP_RAIL',
      start_volts: -8,
      stop_volts: 8,
      points: 101,
      node: 'ADC0',
    });
  });

  it('paints the most overlays, pixels and rows', async () => {
    await runAtMax('overlay_set', fullOverlay(7));
    await runAtMax('overlay_clear', { name: overlayName(7) });
    await runAtMax('rows_highlight', { rows: rows(1, 60), name: 'highlight abcdefghijklmnopqrstu' });
    await runAtMax('overlay_clear', { name: overlayName(6) });
    await runAtMax('overlay_set_pixels', {
      pixels: Array.from({ length: OVERLAY_ROWS * OVERLAY_COLS }, (_, i) => ({
        x_col: (i % OVERLAY_COLS) + 1,
        y_row: Math.floor(i / OVERLAY_COLS) + 1,
        color: '#204060',
      })),
    });
    await runAtMax('overlay_list', {});
    await runAtMax('overlay_clear', {});
    for (let k = 0; k < 8; k++) await runAtMax('overlay_set', fullOverlay(k));
    // Read back with every overlay mottled: the most the board can hand the tools.
    await runAtMax('overlay_clear', {});
    for (let k = 0; k < 8; k++) await putMottledOverlay(k);
    await runAtMax('overlay_list', {});
  });

  it('saves, switches and restores full slots and states', async () => {
    // The fake-GPIO bridges do not read back from a slot file, so the check after saving fails
    // (not_saved); the files are written, full size.
    await runAtMax('slot_save', { slot: 1 }, false);
    await runAtMax('slot_save', {}, false);
    expect(await h.python('_jlt.slot_sum(1)[0]')).toBeGreaterThan(30_000);
    await runAtMax('slot_switch', { slot: 1, discard_changes: true });
    await runAtMax('slot_discard', {}, false);
    // The slot switch ended this server's undo list: nothing to undo, nothing changes.
    const loaded = await h.python<number[]>('[get_num_bridges(), overlay_count()]');
    await expect(h.run(tool('undo'), {})).rejects.toMatchObject({ code: 'nothing_to_undo' });
    expect(await h.python('[get_num_bridges(), overlay_count()]')).toEqual(loaded);
    // A slot file longer than any the board writes is refused before the board changes.
    await h.client.exec(
      "f = open('/slots/slot2.yaml', 'w')\nfor i in range(18):\n    f.write('#' * 4000 + '\\n')\nf.close()",
    );
    await expect(h.run(tool('slot_switch'), { slot: 2, discard_changes: true })).rejects.toMatchObject({
      code: 'bad_slot_file',
    });
    expect(await h.python('[get_num_bridges(), CURRENT_SLOT()]')).toEqual([loaded[0], 1]);
  });

  it('undoes the largest change: a full board cleared, put back', async () => {
    await buildFullBoard();
    await runAtMax('nodes_clear', {});
    await runAtMax('undo', {});
    expect(await h.python('get_num_bridges()')).toBe(MAX_BRIDGES);
  });

  it('applies the largest state and Wokwi diagram', async () => {
    // 60 nets with 128 bridges in all (52 of 3 nodes, 8 of 4), on a board with 8 full overlays.
    for (let k = 0; k < 8; k++) await putMottledOverlay(k);
    const names = [
      ...rows(1, 60).map(String),
      ...['D0', 'D1', 'D2', 'D3', 'D4', 'D5', 'D6', 'D7', 'D8', 'D9'],
    ];
    let next = 0;
    const nets = Array.from({ length: 60 }, (_, k) =>
      Array.from({ length: k < 52 ? 3 : 4 }, () => names[next++ % names.length] as string),
    );
    await runAtMax('state_set', { nets });
    // The overlays are the LED tools' to change: state_set leaves them.
    expect(await h.python('overlay_count()')).toBe(8);
    // More bridges than the board holds: refused by the schema, before anything is sent.
    const tooMany = [...nets.slice(0, 59), ['20', '21', '22', '23', '24']];
    expect(tool('state_set').input.safeParse({ nets: tooMany }).success).toBe(false);

    const wires = Array.from({ length: 2000 }, (_, i) => {
      const k = i % 30;
      return [`bb1:${k + 1}t.a`, `bb1:${k + 1}b.e`, 'green', []];
    });
    const diagram = JSON.stringify({
      version: 1,
      parts: [
        { type: 'wokwi-breadboard', id: 'bb1' },
        { type: 'wokwi-arduino-nano', id: 'nano' },
      ],
      connections: wires,
    });
    await runAtMax('wokwi_import', { diagram: diagram.padEnd(WOKWI_MAX_CHARS, ' ') });
    await runAtMax('firmware_undo', {});
    await runAtMax('firmware_undo', { redo: true });
  });

  it('shows the longest text on the OLED and asks with the longest instruction', async () => {
    await runAtMax('oled_print', { text: 'x'.repeat(OLED_TEXT_MAX) }, false); // no display yet
    await h.python('oled_connect()');
    await runAtMax('oled_print', { text: '\u{1f600}'.repeat(OLED_TEXT_MAX / 2) });
    await runAtMax('oled_show', {});
    await runAtMax('oled_clear', {});
    // These wait for a person: run with their smallest timeout.
    await runAtMax('probe_wait', { timeout_seconds: 0.1 });
    await runAtMax('button_wait', { timeout_seconds: 0.1 });
    await runAtMax('ask_user', {
      instruction: '\u00e9'.repeat(200),
      rows: rows(1, 60),
      timeout_seconds: 0.1,
    });
  });

  it('moves the largest files and code', async () => {
    await h.client.exec(
      "import os\nos.mkdir('/heap')\nfor i in range(150):\n    f = open('/heap/file-number-%03d.txt' % i, 'w')\n    f.write('x')\n    f.close()",
    );
    await runAtMax('file_list', { path: '/heap' });
    const bytes = Buffer.from(Array.from({ length: WRITE_MAX_BYTES }, (_, i) => (i * 131) % 256));
    await runAtMax('file_write', {
      path: '/heap/big.bin',
      content: bytes.toString('base64'),
      encoding: 'base64',
    });
    await runAtMax('file_read', { path: '/heap/big.bin', max_bytes: READ_MAX_BYTES });
    await runAtMax('file_delete', { path: '/heap/big.bin' });
    // The size the description says fits without PSRAM, then the schema's largest.
    const fits = await runAtMax('python_exec', { code: `x = 1\n${'#'.repeat(57)}\n`.repeat(256) });
    expect(fits?.ok).toBe(true);
    const largest = await runAtMax('python_exec', {
      code: `y = 2\n${'#'.repeat(57)}\n`.repeat(CODE_MAX_CHARS / 64),
    });
    if (largest?.ok === false) expect(largest.error).toMatchObject({ type: 'MemoryError' });
    // The largest script: checked, saved in parts, run; and the whole API reference.
    const script = `n = 0\n${'# a comment line of a long script, kept to fill it up.....\n'.repeat(135)}print('done')\n`;
    expect(Buffer.byteLength(script)).toBeLessThanOrEqual(SCRIPT_MAX_BYTES);
    expect(Buffer.byteLength(script)).toBeGreaterThan(SCRIPT_MAX_BYTES - 400);
    const ran = await runAtMax('script_run', { name: 'largest', code: script });
    expect(ran).toMatchObject({ ok: true, output: 'done\n' });
    await runAtMax('api_reference', {});
  });

  it('changes the Python context, core 2 and the Arduino', async () => {
    await runAtMax('context_toggle', {});
    await runAtMax('context_toggle', {});
    await runAtMax('core_pause', {});
    await runAtMax('core_pause', { resume: true });
    await runAtMax('arduino_reset', {});
    // Sends no board job: the lease is kept by the process that holds the port.
    await runAtMax('board_lease', { minutes: 1440 });
    await runAtMax('board_lease', { minutes: 0 });
    await runAtMax('wavegen_configure', { output: 'DAC1', waveform: 'square', frequency_hz: 10_000 }, false);
    await runAtMax('wavegen_configure', { running: true }, false);
    await runAtMax('wavegen_configure', { running: false }, false);
  });

  it('removes and makes the most bridges at once', async () => {
    await buildFullBoard();
    await runAtMax('disconnect', { pairs: PAIRS.slice(0, MAX_BRIDGES), nodes: NODES.slice(0, MAX_BRIDGES) });
    await runAtMax('connect', { pairs: PAIRS });
    await runAtMax('nodes_clear', {});
  });

  it('ran every tool of the catalog', () => {
    expect(catalog.map((t) => t.name).filter((name) => !ran.has(name))).toEqual([]);
  });
});
