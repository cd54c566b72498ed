/**
 * Whole tasks through MCP, as a model would do them, on the virtual board with two resistors
 * plugged in (railDivider.json): wire and measure a divider, sweep it, ask the person (a scripted
 * button press), a refused short, and an unplug in the middle of a call.
 */
import { resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFixture, startHttpFixture } from './serverFixture.js';

let fx: HttpFixture;
let client: Client;
beforeAll(async () => {
  fx = await startHttpFixture({ device: `sim:${resolve(import.meta.dirname, 'railDivider.json')}` });
  ({ client } = await fx.connect());
});
afterAll(async () => {
  await fx?.close();
});

type Content = { type: string; text?: string; mimeType?: string; data?: string };
const failureOf = (result: unknown) =>
  JSON.parse((result as { content: Content[] }).content[0]?.text ?? '{}');
const sim = () => {
  const board = fx.app.board?.sim;
  if (!board) throw new Error('the fixture runs on the virtual board');
  return board;
};

describe('at the bench, through MCP', () => {
  it('builds a divider from the top rail and measures the middle', async () => {
    const wired = await client.callTool({
      name: 'connect',
      arguments: {
        pairs: [
          ['TOP_RAIL', 20],
          ['GND', 30],
        ],
      },
    });
    expect(wired.structuredContent).toMatchObject({ added: 2, unrouted: 0 });
    await client.callTool({ name: 'dac_set', arguments: { channel: 'TOP_RAIL', volts: 5 } });
    const middle = await client.callTool({ name: 'voltage_measure', arguments: { node: 25 } });
    expect(middle.isError).toBeUndefined();
    const { volts } = middle.structuredContent as { volts: number };
    expect(volts).toBeGreaterThan(2.4);
    expect(volts).toBeLessThan(2.6);
  });

  it('sweeps the rail with progress and returns the points and a plot', async () => {
    const progress: number[] = [];
    const sweep = await client.callTool(
      {
        name: 'voltage_sweep',
        arguments: {
          supply: 'TOP_RAIL',
          start_volts: 0,
          stop_volts: 4,
          points: 5,
          node: 25,
        },
      },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(sweep.isError).toBeUndefined();
    const { points, restored_volts } = sweep.structuredContent as {
      points: { supply_volts: number; node_volts?: number }[];
      restored_volts: number;
    };
    expect(points).toHaveLength(5);
    for (const point of points) expect(point.node_volts).toBeCloseTo(point.supply_volts / 2, 1);
    expect(restored_volts).toBe(5);
    expect(progress.length).toBeGreaterThanOrEqual(5);
    const plot = (sweep.content as Content[]).find((c) => c.type === 'image');
    expect(plot?.mimeType).toBe('image/png');
    expect(
      Buffer.from(plot?.data ?? '', 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
  });

  it('refuses a short between two supplies as a tool error that says why, and changes nothing', async () => {
    const result = await client.callTool({ name: 'connect', arguments: { pairs: [['TOP_RAIL', 'GND']] } });
    expect(result.isError).toBe(true);
    const [text] = result.content as Content[];
    const error = JSON.parse(text?.type === 'text' ? (text.text ?? '{}') : '{}') as {
      code: string;
      message: string;
    };
    expect(error.code).toBe('unsafe_short');
    expect(error.message).toMatch(
      /TOP_RAIL-GND would join TOP_RAIL \(5 V\) and GND \(0 V\)\. A short circuit/,
    );
    const bridges = await client.callTool({ name: 'bridges_list', arguments: {} });
    expect(
      (bridges.structuredContent as { bridges: { node1: string; node2: string }[] }).bridges,
    ).not.toContainEqual(expect.objectContaining({ node1: 'TOP_RAIL', node2: 'GND' }));
  });

  it('asks the person and takes a scripted button press as the answer', async () => {
    let pressed = false;
    const answer = await client.callTool(
      {
        name: 'ask_user',
        arguments: { instruction: 'Plug R1 between rows 20 and 25', rows: [20, 25], timeout_seconds: 20 },
      },
      {
        onprogress: () => {
          if (pressed) return;
          pressed = true;
          sim().inputs.button('connect');
        },
      },
    );
    expect(answer.structuredContent).toMatchObject({
      answer: 'confirmed',
      answered_by: 'probe_button',
      rows_lit: [20, 25],
    });
  });

  it('asks through the client too, when it supports elicitation, and takes its answer', async () => {
    const { client: asking } = await fx.connect({ elicitation: true });
    const questions: string[] = [];
    asking.setRequestHandler('elicitation/create', async (request) => {
      questions.push(String(request.params.message));
      return { action: 'accept' };
    });
    const answer = await asking.callTool({
      name: 'ask_user',
      arguments: { instruction: 'Plug R2 between rows 25 and 30', rows: [25, 30], timeout_seconds: 20 },
    });
    expect(answer.structuredContent).toMatchObject({ answer: 'confirmed', answered_by: 'client' });
    expect(questions).toEqual([expect.stringContaining('Plug R2 between rows 25 and 30')]);
  });

  it('turns an unplug in the middle of a call into a clear, retryable error; the next call works', async () => {
    const logs: string[] = [];
    client.setNotificationHandler('notifications/message', (n) => {
      logs.push(String(n.params.data));
    });
    let unplugged = false;
    const result = await client.callTool(
      { name: 'button_wait', arguments: { timeout_seconds: 20 } },
      {
        onprogress: () => {
          if (unplugged) return;
          unplugged = true;
          void sim().faults.unplug();
        },
      },
    );
    expect(result.isError).toBe(true);
    const failure = failureOf(result);
    expect(failure).toMatchObject({ code: 'disconnected', retryable: true });
    expect(failure.message).toMatch(/USB cable/);
    await sim().faults.replug();
    await expect
      .poll(async () => (await client.callTool({ name: 'power_get', arguments: {} })).isError ?? false, {
        timeout: 10_000,
        interval: 200,
      })
      .toBe(false);
    expect(logs).toEqual(
      expect.arrayContaining([expect.stringMatching(/reconnecting/), expect.stringMatching(/connected/)]),
    );
  });
});
