/**
 * The latest readings and the OLED's text (issue 25 item 1) go into the one renderer's state: the
 * state document and `board_picture`'s PNG show what tool calls measured and printed, on the
 * virtual board, through the same runTool path a client's call takes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { MAX_READINGS, notesOf, withResult } from './boardNotes.js';
import { notesLines, pinRuns } from './boardPicture.js';
import { gpioConfig, gpioGet } from './gpio.js';
import { voltageMeasure } from './measure.js';
import { oledClear, oledPrint } from './oled.js';
import { boardResourcesFor, renderBoardPng } from './resources.js';
import { readSnapshot } from './snapshot.js';
import { boardPicture } from './state.js';

describe('what the state cannot tell, kept from the calls that made it', () => {
  it('keeps the newest measurements first, at most eight, and the OLED text from print and clear', () => {
    let notes = { readings: [] } as ReturnType<typeof notesOf>;
    for (let i = 0; i < MAX_READINGS + 3; i++) {
      notes = withResult(
        notes,
        'bench.jumperless.voltage_measure',
        { node: i },
        { node: `ROW_${i}`, volts: i / 10 },
      );
    }
    expect(notes.readings).toHaveLength(MAX_READINGS);
    expect(notes.readings[0]).toMatchObject({
      tool: 'voltage_measure',
      what: `ROW_${MAX_READINGS + 2}`,
      unit: 'V',
    });
    notes = withResult(notes, 'current_measure', {}, { milliamps: 12.5 });
    expect(notes.readings[0]).toMatchObject({ what: 'current', value: 12.5, unit: 'mA' });
    expect(withResult(notes, 'connect', { pairs: [[1, 2]] }, { volts: 3 })).toBe(notes);
    notes = withResult(notes, 'oled_print', { text: 'hi' }, {});
    expect(notes.oled).toBe('hi');
    expect(withResult(notes, 'oled_clear', {}, {}).oled).toBe('');
  });
});

describe('the state document and the picture on the virtual board', () => {
  let h: ToolHarness;
  beforeAll(async () => {
    h = await startToolHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });
  const readState = async () => {
    const state = boardResourcesFor(async () => h.client).find((r) => r.uri.endsWith('/board/state'));
    if (!state) throw new Error('no state resource');
    const content = await state.read({ signal: AbortSignal.timeout(20_000), caller: 't' });
    return JSON.parse((content as { text: string }).text);
  };

  it('shows nothing extra until a call measured or printed', async () => {
    const doc = await readState();
    expect(doc.readings).toBeUndefined();
    expect(doc.oled).toBeUndefined();
    expect(Array.isArray(doc.gpio)).toBe(true);
  });

  it('carries a measurement and the OLED text into the state resource and board_picture', async () => {
    await h.session.exec('dac_set(TOP_RAIL, 2.0)\nconnect(TOP_RAIL, 7)');
    await h.run(voltageMeasure, { node: 7 });
    await h.run(oledPrint, { text: 'hello bench' });
    const notes = notesOf(h.client);
    expect(notes.readings[0]).toMatchObject({ tool: 'voltage_measure', what: '7', unit: 'V' });
    expect(notes.readings[0]?.value).toBeCloseTo(2, 1);
    expect(notes.oled).toBe('hello bench');

    const doc = await readState();
    expect(doc.readings[0]).toMatchObject({ what: '7', unit: 'V' });
    expect(doc.oled).toBe('hello bench');

    const snapshot = { ...(await readSnapshot(h.client)), notes };
    const lines = notesLines(snapshot);
    expect(lines.some((l) => /^GPIO 1[ -]/.test(l))).toBe(true);
    expect(lines.some((l) => /^READINGS 7 [12]\.\d{3}V\b/.test(l))).toBe(true);
    expect(lines).toContain("OLED 'HELLO BENCH'");
    const after = (await h.run(boardPicture)).images[0]?.data ?? '';
    expect(Buffer.from(after, 'base64').equals(Buffer.from(renderBoardPng(snapshot)))).toBe(true);
    // The readings and the OLED are lines of their own under the legend: the picture grew by two.
    const height = (png: Uint8Array) => Buffer.from(png).readUInt32BE(20);
    const without = renderBoardPng({ ...snapshot, notes: { readings: [] } });
    expect(height(Buffer.from(after, 'base64'))).toBe(height(without) + 2 * 16);

    await h.run(oledClear, {});
    expect(notesLines({ ...snapshot, notes: notesOf(h.client) })).toContain('OLED (CLEARED)');
  }, 60_000);

  it('draws each GPIO pin as gpio_get reads it: the level its pull holds, never "FLOAT" beside a LOW', async () => {
    await h.run(gpioConfig, { pin: 2, direction: 'INPUT', pull: 'PULLUP' });
    await h.run(gpioConfig, { pin: 3, level: 'HIGH' });
    await h.run(gpioConfig, { pin: 4, direction: 'INPUT', pull: 'NO_PULL' });
    const line = notesLines(await readSnapshot(h.client))
      .filter((l) => !/^(READINGS|OLED)/.test(l))
      .join(' ');
    expect(line).not.toMatch(/FLOAT\b/);
    const drawn = new Map<number, string>();
    for (const [, first, last, level] of line.matchAll(
      /(\d+)(?:-(\d+))? (?:IN|OUT) ([A-Z]+(?: \(PULL-(?:UP|DOWN)\))?)/g,
    )) {
      for (let pin = Number(first); pin <= Number(last ?? first); pin++) drawn.set(pin, level as string);
    }
    const doc = await readState();
    for (let pin = 1; pin <= 8; pin++) {
      const read = (await h.run(gpioGet, { pin })).result as {
        state: string;
        pull: string;
        held_by_pull?: boolean;
      };
      const pull = read.pull === 'PULLUP' ? 'PULL-UP' : 'PULL-DOWN';
      const words = read.held_by_pull ? `${read.state} (${pull})` : read.state;
      expect(drawn.get(pin), `GPIO ${pin}`).toBe(words === 'FLOATING' ? 'FLOATING' : words);
      // The page draws the state document's level: the same words.
      expect(doc.gpio[pin - 1].level, `GPIO ${pin} in the state document`).toBe(words);
    }
    // The UART pins: gpio_get reads them UNKNOWN (the firmware never samples them), and so does the picture.
    for (const [pin, name] of [
      [9, 'TX'],
      [10, 'RX'],
    ] as const) {
      const read = (await h.run(gpioGet, { pin })).result as { state: string };
      expect(read.state).toBe('UNKNOWN');
      expect(line).toMatch(new RegExp(`\\b${name} (IN|OUT) UNKNOWN\\b`));
      expect(doc.gpio[pin - 1].level).toBe('UNKNOWN');
    }
    expect(drawn.get(2)).toBe('HIGH (PULL-UP)');
    expect(drawn.get(3)).toBe('HIGH');
  }, 60_000);

  it('writes neighbouring pins that read alike as one run', () => {
    const pins = [1, 2, 3].map((pin) => ({ pin, text: 'IN LOW (PULL-DOWN)' }));
    expect(pinRuns([...pins, { pin: 4, text: 'OUT HIGH' }, { pin: 'TX', text: 'IN LOW' }])).toEqual([
      '1-3 IN LOW (PULL-DOWN)',
      '4 OUT HIGH',
      'TX IN LOW',
    ]);
  });
});
