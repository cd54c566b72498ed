/** A board's catalog as a subsystem, over a real virtual board, as the CLI builds it. */
import { afterAll, describe, expect, it } from 'vitest';
import { openBoard } from '../cli/board.js';
import { catalog } from '../tools/index.js';
import { boardResourcesFor } from '../tools/resources.js';
import { safetyPolicy } from '../tools/safety.js';
import { type OpenedBoard, ToolSubsystem } from './toolSubsystem.js';

const context = () => ({ signal: new AbortController().signal, progress: () => {}, caller: 'test' });
const safety = safetyPolicy({ maxVolts: 5, minVolts: -5 });

async function opened(): Promise<OpenedBoard> {
  const board = await openBoard('sim');
  return {
    board: board.client,
    health: () => board.session.health(),
    onLog: (listener) =>
      board.session.onEvent((event) => {
        if (event.type === 'reset') listener('warning', `reset (${event.kind})`);
      }),
    close: () => board.close(),
  };
}

describe('a board catalog as a subsystem', () => {
  let opens = 0;
  const board = new ToolSubsystem({
    name: 'jumperless-a',
    ring: 'personal-bench',
    tools: catalog,
    safety,
    board: {
      device: 'sim',
      open: async () => {
        opens++;
        return opened();
      },
    },
    resources: boardResourcesFor,
  });
  afterAll(async () => {
    await board.disconnect();
  });

  it('offers its catalog before it is started, is down and answers unavailable', async () => {
    expect(board.tools().map((t) => t.name)).toEqual(catalog.map((t) => t.name));
    expect(board.resources().map((r) => r.uri)).toContain('jumperless://board/state');
    expect(board.prompts()).toEqual([]);
    expect(board.health()).toMatchObject({
      name: 'jumperless-a',
      status: 'down',
      device: 'sim',
      ring: 'personal-bench',
    });
    await expect(board.invoke('power_get', {}, context())).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('opens nothing when started: the board opens at the first call that needs it', async () => {
    await board.connect();
    expect(opens).toBe(0);
    expect(board.health()).toMatchObject({ status: 'ok', opens: 'at the first call' });
    const tools = board.tools();
    expect(tools.map((t) => t.name)).toEqual(catalog.map((t) => t.name));
    expect(tools.find((t) => t.name === 'python_exec')).toMatchObject({
      hidden: false,
      capability: 'jumperless.exec',
    });
    expect(tools.find((t) => t.name === 'dac_set')).toMatchObject({
      hidden: false,
      capability: 'jumperless.power',
    });
    expect((await board.invoke('power_get', {}, context())).structuredContent).toHaveProperty('dac0_volts');
    expect(opens).toBe(1);
    expect(board.health()).toMatchObject({ status: 'ok', session: { state: 'ready', connected: true } });
  });

  it('runs tools on its own board with the single-board rendering, limits and errors', async () => {
    const set = await board.invoke('dac_set', { channel: 'DAC1', volts: 2 }, context());
    expect(set.structuredContent).toMatchObject({ channel: 'DAC1', volts: 2 });
    expect(set.content[0]).toEqual({ type: 'text', text: JSON.stringify(set.structuredContent) });
    // A failure is thrown as the tool said it; runTool renders it once, for every transport.
    await expect(board.invoke('dac_set', { channel: 'DAC1', volts: 6 }, context())).rejects.toMatchObject({
      code: 'unsafe_voltage',
    });
    const dacSet = board.tools().find((t) => t.name === 'dac_set');
    expect(() => dacSet?.parse?.({ channel: 'NOPE', volts: 1 })).toThrow(
      expect.objectContaining({ code: -32602 }),
    );
    await expect(board.invoke('nope', {}, context())).rejects.toMatchObject({ code: -32602 });
  });

  it('closes its board on disconnect, and opens a fresh one on the next connect', async () => {
    await board.disconnect();
    expect(board.health().status).toBe('down');
    await expect(board.invoke('power_get', {}, context())).rejects.toMatchObject({ code: 'unavailable' });
    await board.connect();
    expect(opens).toBe(1);
    expect((await board.invoke('power_get', {}, context())).structuredContent).toMatchObject({
      dac1_volts: 0,
    });
    expect(opens).toBe(2);
  });

  it('answers unavailable, saying why, when the board cannot be opened, and tries again at the next call', async () => {
    let tries = 0;
    const broken = new ToolSubsystem({
      name: 'jumperless-b',
      tools: catalog,
      safety,
      board: {
        device: '/dev/nothing',
        open: async () => {
          tries++;
          throw new Error('no such port');
        },
      },
    });
    await broken.connect();
    expect(tries).toBe(0);
    for (let i = 0; i < 2; i++) {
      await expect(broken.invoke('power_get', {}, context())).rejects.toMatchObject({
        code: 'unavailable',
        message: expect.stringMatching(/no such port/),
      });
    }
    expect(tries).toBe(2);
    expect(broken.health()).toMatchObject({ status: 'down', detail: expect.stringMatching(/no such port/) });
    expect(
      () =>
        new ToolSubsystem({
          name: 'jumperless_b',
          tools: [],
          safety,
          board: { device: 'sim', open: opened },
        }),
    ).toThrow(/kebab-case/);
  });
});
