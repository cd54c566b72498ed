import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemorySubsystem } from '../../test/support/fakeSubsystem.js';
import { RpcError, ToolError } from '../core/errors.js';
import type { SubsystemEvent } from '../core/subsystem.js';
import type { CallContext } from '../core/toolDefinition.js';
import { FederationAggregator } from './aggregator.js';
import { FederationError } from './errors.js';

const quiet = () => {};
const context = (): CallContext => ({
  signal: new AbortController().signal,
  progress: () => {},
  caller: 'test',
});
const names = (aggregator: FederationAggregator) => aggregator.tools().map((tool) => tool.name);
const listed = (aggregator: FederationAggregator) =>
  aggregator
    .tools()
    .filter((tool) => tool.available !== false)
    .map((tool) => tool.name);

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('FederationAggregator', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('prefixes each child tool with the child name and routes calls to it', async () => {
    const a = new MemorySubsystem('jumperless-a', [{ name: 'dac_set' }, { name: 'power_get' }]);
    const b = new MemorySubsystem('esp32-p4', [{ name: 'some_tool', run: (args) => ({ echo: args }) }]);
    const bench = new FederationAggregator({ name: 'bench', children: [a, b], log: quiet });
    await bench.connect();
    expect(names(bench)).toEqual(['jumperless-a.dac_set', 'jumperless-a.power_get', 'esp32-p4.some_tool']);
    const result = await bench.invoke('esp32-p4.some_tool', { x: 1 }, context());
    expect(result.structuredContent).toEqual({ echo: { x: 1 } });
    expect(await bench.invoke('jumperless-a.dac_set', {}, context())).toMatchObject({
      structuredContent: { tool: 'jumperless-a.dac_set' },
    });
  });

  it('nests: an aggregator is a child like any other (bench.jumperless.dac_set)', async () => {
    const board = new MemorySubsystem('jumperless', [{ name: 'dac_set' }]);
    const bench = new FederationAggregator({ name: 'bench', children: [board], log: quiet });
    const lab = new FederationAggregator({
      name: 'lab',
      children: [bench, new MemorySubsystem('scope', [{ name: 'read' }])],
      log: quiet,
    });
    await lab.connect();
    expect(names(lab)).toEqual(['bench.jumperless.dac_set', 'scope.read']);
    expect(await lab.invoke('bench.jumperless.dac_set', { v: 1 }, context())).toMatchObject({
      structuredContent: { tool: 'jumperless.dac_set', args: { v: 1 } },
    });
    expect(lab.health()).toMatchObject({
      name: 'lab',
      status: 'ok',
      children: [
        { name: 'bench', status: 'ok', children: [{ name: 'jumperless', status: 'ok' }] },
        { name: 'scope' },
      ],
    });
  });

  it('refuses names that are not kebab-case, twin children and bad ring ids, at construction', () => {
    expect(
      () => new FederationAggregator({ name: 'bench', children: [new MemorySubsystem('esp32_p4')] }),
    ).toThrow(/"esp32_p4" is not kebab-case: use "esp32-p4".*ambiguous/);
    expect(() => new FederationAggregator({ name: 'my_bench', children: [] })).toThrow(FederationError);
    expect(
      () =>
        new FederationAggregator({
          name: 'bench',
          children: [new MemorySubsystem('a'), new MemorySubsystem('a')],
        }),
    ).toThrow(/two children named "a"/);
    expect(() => new FederationAggregator({ name: 'bench', children: [], ring: 'Personal Bench' })).toThrow(
      /ring id "Personal Bench"/,
    );
    expect(
      new FederationAggregator({ name: 'bench', children: [], ring: 'personal-bench' }).health(),
    ).toMatchObject({
      ring: 'personal-bench',
    });
  });

  it('answers an unknown child or a name without a tool part as unknown', async () => {
    const bench = new FederationAggregator({
      name: 'bench',
      children: [new MemorySubsystem('a', [{ name: 'x' }])],
      log: quiet,
    });
    await bench.connect();
    for (const name of ['b.x', 'a', '.x', '']) {
      const error = await thrown(bench.invoke(name, {}, context()));
      expect(error, name).toBeInstanceOf(RpcError);
      expect((error as RpcError).code).toBe(-32602);
    }
  });

  it('starts without a child that cannot connect, reports it down, and retries with backoff until it is back', async () => {
    const good = new MemorySubsystem('good', [{ name: 'x' }]);
    const late = new MemorySubsystem('late', [{ name: 'y' }]);
    late.refuse = 3;
    const bench = new FederationAggregator({
      name: 'bench',
      children: [good, late],
      reconnectDelayMs: { initial: 100, max: 1000 },
      log: quiet,
    });
    const events: SubsystemEvent[] = [];
    bench.watch((event) => events.push(event));
    // Its catalog was known before it connected: listed while the first connect runs, then kept in
    // the table but unavailable (a call answers `unavailable`, not `unknown tool`).
    expect(listed(bench)).toEqual(['good.x', 'late.y']);
    await bench.connect();
    expect(listed(bench)).toEqual(['good.x']);
    expect(names(bench)).toEqual(['good.x', 'late.y']);
    expect(bench.health()).toMatchObject({
      status: 'down',
      detail: 'not ok: late',
      children: [
        { name: 'good', status: 'ok' },
        { name: 'late', status: 'down', detail: 'late refused', reconnect: { failures: 1, next_in_ms: 200 } },
      ],
    });
    // Backoff 200, 400, 800 ms: the fourth attempt succeeds.
    await vi.advanceTimersByTimeAsync(199);
    expect(late.connects).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(late.connects).toBe(2);
    await vi.advanceTimersByTimeAsync(400);
    expect(late.connects).toBe(3);
    expect(listed(bench)).toEqual(['good.x']);
    events.length = 0;
    await vi.advanceTimersByTimeAsync(800);
    expect(late.connects).toBe(4);
    expect(listed(bench)).toEqual(['good.x', 'late.y']);
    expect(events).toContainEqual({ type: 'tools_changed' });
    expect(bench.health().status).toBe('ok');
  });

  it('brings up a child whose catalog it listed in advance without telling anyone the list changed', async () => {
    const board = new MemorySubsystem('board', [{ name: 'x' }]);
    const bench = new FederationAggregator({ name: 'bench', children: [board], log: quiet });
    const events: SubsystemEvent[] = [];
    bench.watch((event) => events.push(event));
    const before = bench.tools();
    await bench.connect();
    expect(events).toEqual([]);
    expect(bench.tools()).toBe(before);
    board.changeTools([{ name: 'x' }, { name: 'y' }]);
    expect(events).toEqual([{ type: 'tools_changed' }]);
    expect(names(bench)).toEqual(['board.x', 'board.y']);
  });

  it('keeps a dropped child tools known but unavailable, answers unavailable at once, and reconnects', async () => {
    const child = new MemorySubsystem('esp32-p4', [{ name: 'some_tool' }]);
    const bench = new FederationAggregator({
      name: 'bench',
      children: [child, new MemorySubsystem('other', [{ name: 'z' }])],
      reconnectDelayMs: { initial: 100, max: 1000 },
      log: quiet,
    });
    await bench.connect();
    const events: SubsystemEvent[] = [];
    bench.watch((event) => events.push(event));
    child.refuse = 1;
    child.drop('process exited');
    expect(events).toEqual([{ type: 'tools_changed' }]);
    expect(names(bench)).toEqual(['esp32-p4.some_tool', 'other.z']);
    expect(listed(bench)).toEqual(['other.z']);
    const error = await thrown(bench.invoke('esp32-p4.some_tool', {}, context()));
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(
        /^esp32-p4 is not connected \(process exited\); the server reconnects it/,
      ),
      options: { retryable: true, details: { subsystem: 'esp32-p4' } },
    });
    expect(bench.health()).toMatchObject({
      status: 'down',
      children: [{ name: 'esp32-p4', status: 'down' }, { status: 'ok' }],
    });
    await vi.advanceTimersByTimeAsync(100); // first retry: refused
    expect(listed(bench)).toEqual(['other.z']);
    await vi.advanceTimersByTimeAsync(200); // second retry: back
    expect(listed(bench)).toEqual(['esp32-p4.some_tool', 'other.z']);
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(await bench.invoke('esp32-p4.some_tool', {}, context())).toMatchObject({
      structuredContent: { tool: 'esp32-p4.some_tool' },
    });
  });

  it('passes on a child catalog change, and a nested drop reaches the top as unavailable', async () => {
    const board = new MemorySubsystem('jumperless', [{ name: 'dac_set' }]);
    const bench = new FederationAggregator({ name: 'bench', children: [board], log: quiet });
    const top = new FederationAggregator({ name: 'top', children: [bench], log: quiet });
    await top.connect();
    const events: SubsystemEvent[] = [];
    top.watch((event) => events.push(event));
    board.changeTools([{ name: 'dac_set' }, { name: 'adc_get' }]);
    expect(names(top)).toEqual(['bench.jumperless.dac_set', 'bench.jumperless.adc_get']);
    board.drop();
    expect(top.tools().map((tool) => tool.available)).toEqual([false, false]);
    expect(events).toHaveLength(2);
    expect(top.health()).toMatchObject({ status: 'down', children: [{ name: 'bench', status: 'down' }] });
    await expect(top.invoke('bench.jumperless.dac_set', {}, context())).rejects.toMatchObject({
      code: 'unavailable',
    });
  });

  it('gives up a connect attempt that hangs, and stops retrying once disconnected', async () => {
    const stuck = new MemorySubsystem('stuck', [{ name: 'x' }]);
    stuck.gate = new Promise(() => {});
    const bench = new FederationAggregator({
      name: 'bench',
      children: [stuck],
      connectTimeoutMs: 1000,
      reconnectDelayMs: { initial: 100, max: 100 },
      log: quiet,
    });
    const started = bench.connect();
    await vi.advanceTimersByTimeAsync(1000);
    await started;
    expect(bench.health().children?.[0]).toMatchObject({
      status: 'down',
      detail: 'no answer within 1000 ms',
    });
    await bench.disconnect();
    const attempts = stuck.connects;
    await vi.advanceTimersByTimeAsync(5000);
    expect(stuck.connects).toBe(attempts);
  });
});
