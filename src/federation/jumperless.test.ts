/** The board subsystem over a real virtual board and the real single-board dispatcher, as the CLI builds it. */
import { afterAll, describe, expect, it } from 'vitest';
import { openBoard } from '../cli/board.js';
import { createDispatcher } from '../dispatch/dispatcher.js';
import { boardRunner, toolDescriptor } from '../dispatch/federated.js';
import { catalog } from '../tools/index.js';
import { safetyPolicy } from '../tools/safety.js';
import { type BoardRuntime, JumperlessSubsystem } from './jumperless.js';

const context = () => ({ signal: new AbortController().signal, progress: () => {} });

async function runtime(): Promise<BoardRuntime> {
  const board = await openBoard('sim');
  const dispatcher = createDispatcher({
    tools: catalog,
    board: board.client,
    safety: safetyPolicy({ maxVolts: 5, minVolts: -5 }),
  });
  return {
    tools: dispatcher.registry.all().map(toolDescriptor),
    run: boardRunner(dispatcher),
    connect: () => board.session.connect(),
    health: () => board.session.health(),
    close: () => board.close(),
  };
}

describe('JumperlessSubsystem', () => {
  let opens = 0;
  const board = new JumperlessSubsystem({
    name: 'jumperless-a',
    ring: 'personal-bench',
    device: 'sim',
    open: async () => {
      opens++;
      return runtime();
    },
  });
  afterAll(async () => {
    await board.disconnect();
  });

  it('is down and answers unavailable before it is connected', async () => {
    expect(board.tools()).toEqual([]);
    expect(board.health()).toMatchObject({
      name: 'jumperless-a',
      status: 'down',
      device: 'sim',
      ring: 'personal-bench',
    });
    await expect(board.invoke('power_get', {}, context())).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('offers the whole catalog, hidden tools marked, each with its capability', async () => {
    await board.connect();
    const tools = board.tools();
    expect(tools.map((t) => t.name)).toEqual(catalog.map((t) => t.name));
    expect(tools.find((t) => t.name === 'python_exec')).toMatchObject({
      hidden: true,
      capability: 'jumperless.exec',
    });
    expect(tools.find((t) => t.name === 'dac_set')).toMatchObject({
      hidden: false,
      capability: 'jumperless.power',
    });
    expect(board.health()).toMatchObject({ status: 'ok', session: { state: 'ready', connected: true } });
  });

  it('runs tools on its own board with the single-board rendering, limits and errors', async () => {
    const set = await board.invoke('dac_set', { channel: 'DAC1', volts: 2 }, context());
    expect(set.structuredContent).toMatchObject({ channel: 'DAC1', volts: 2 });
    expect(set.content[0]).toEqual({ type: 'text', text: JSON.stringify(set.structuredContent) });
    const unsafe = await board.invoke('dac_set', { channel: 'DAC1', volts: 6 }, context());
    expect(unsafe.isError).toBe(true);
    expect(JSON.parse(String(unsafe.content[0]?.text))).toMatchObject({
      code: 'unsafe_voltage',
    });
    await expect(board.invoke('dac_set', { channel: 'NOPE', volts: 1 }, context())).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('closes its board on disconnect, and opens a fresh one on the next connect', async () => {
    await board.disconnect();
    expect(board.health().status).toBe('down');
    await expect(board.invoke('power_get', {}, context())).rejects.toMatchObject({ code: 'unavailable' });
    await board.connect();
    expect(opens).toBe(2);
    expect((await board.invoke('power_get', {}, context())).structuredContent).toMatchObject({
      dac1_volts: 0,
    });
  });

  it('fails to connect when the board cannot be opened, and tries again next time', async () => {
    let tries = 0;
    const broken = new JumperlessSubsystem({
      name: 'jumperless-b',
      device: '/dev/nothing',
      open: async () => {
        tries++;
        throw new Error('no such port');
      },
    });
    await expect(broken.connect()).rejects.toThrow('no such port');
    await expect(broken.connect()).rejects.toThrow('no such port');
    expect(tries).toBe(2);
    expect(() => new JumperlessSubsystem({ name: 'jumperless_b', device: 'sim', open: runtime })).toThrow(
      /kebab-case/,
    );
  });
});
