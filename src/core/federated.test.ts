import { describe, expect, it } from 'vitest';
import { MemorySubsystem } from '../../test/support/fakeSubsystem.js';
import { FederationAggregator } from '../federation/aggregator.js';
import { dotFormat, underscoreFormat } from '../federation/wireNames.js';
import { catalog } from '../tools/index.js';
import type { AuditEvent } from './audit.js';
import { CAPABILITIES, type Capability } from './capabilities.js';
import { createDispatcher } from './dispatcher.js';
import { RpcError, unavailable } from './errors.js';
import { buildRegistry } from './registry.js';
import { renderResult } from './render.js';
import { runTool } from './runTool.js';
import { metaTools } from './toolSearch.js';
import { describeTool, ToolSubsystem } from './toolSubsystem.js';

const quiet = () => {};
const operator = { id: 'test', granted: new Set<Capability>(CAPABILITIES) };

async function bench(children: MemorySubsystem[]) {
  const root = new FederationAggregator({
    name: 'bench',
    children,
    reconnectDelayMs: { initial: 10_000, max: 10_000 },
    log: quiet,
  });
  await root.connect();
  return root;
}

async function rpcError(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

describe('federated registry', () => {
  it('holds every child tool under its wire name, lists the visible ones, and runs them through runTool', async () => {
    const esp = new MemorySubsystem('esp32-p4', [
      { name: 'some_tool', run: (args) => ({ got: args }) },
      { name: 'secret', hidden: true },
    ]);
    const root = await bench([new MemorySubsystem('jumperless-a', [{ name: 'dac_set' }]), esp]);
    const audit: AuditEvent[] = [];
    const dispatcher = createDispatcher({
      root,
      format: underscoreFormat,
      log: quiet,
      audit: (event) => audit.push(event),
    });
    const { registry } = dispatcher;
    expect(registry.listed().map((t) => t.definition.name)).toEqual([
      'jumperless-a_dac_set',
      'esp32-p4_some_tool',
    ]);
    expect(registry.all().map((t) => t.definition.name)).toContain('esp32-p4_secret');

    const result = await runTool(dispatcher, {
      name: 'esp32-p4_some_tool',
      arguments: { x: [1, 2] },
      caller: operator,
    });
    expect(result).toEqual(renderResult({ got: { x: [1, 2] } }));
    const hidden = await runTool(dispatcher, { name: 'esp32-p4_secret', caller: operator });
    expect(hidden.structuredContent).toEqual({ tool: 'esp32-p4.secret', args: {} });
    expect(audit.map((e) => [e.tool, e.outcome])).toEqual([
      ['esp32-p4_some_tool', 'ok'],
      ['esp32-p4_secret', 'ok'],
    ]);
  });

  it('answers a name not in the table as unknown (-32602), internal dotted names included', async () => {
    const root = await bench([new MemorySubsystem('esp32-p4', [{ name: 'some_tool' }])]);
    const dispatcher = createDispatcher({ root, format: underscoreFormat });
    for (const name of [
      'esp32-p4_',
      'esp32-p4.some_tool',
      'some_tool',
      'esp32-p4_some_tool2',
      'bench_esp32-p4_some_tool',
    ]) {
      const error = await rpcError(runTool(dispatcher, { name, caller: operator }));
      expect(error.code, name).toBe(-32602);
      expect(error.message).toBe(`Unknown tool: ${name}`);
    }
    const dot = createDispatcher({ root, format: dotFormat });
    expect((await runTool(dot, { name: 'esp32-p4.some_tool', caller: operator })).isError).toBeUndefined();
    expect((await rpcError(runTool(dot, { name: 'esp32-p4_some_tool', caller: operator }))).code).toBe(
      -32602,
    );
  });

  it('refuses to start when two tools would share a wire name, naming both', async () => {
    const noCatalog = { entries: () => [], definition: () => undefined };
    // Kebab-case keeps a-b.c_d and a.b_c_d apart.
    const kebab = await bench([
      new MemorySubsystem('a-b', [{ name: 'c_d' }]),
      new MemorySubsystem('a', [{ name: 'b_c_d' }]),
    ]);
    expect(
      buildRegistry({ root: kebab, format: underscoreFormat })
        .all()
        .map((t) => t.definition.name),
    ).toEqual(['a-b_c_d', 'a_b_c_d']);
    // A child that is itself a federation in the dot format offers y.z next to y_z.
    const remote = await bench([new MemorySubsystem('x', [{ name: 'y_z' }, { name: 'y.z' }])]);
    expect(() => buildRegistry({ root: remote, format: underscoreFormat })).toThrow(
      /tools x\.y_z and x\.y\.z would share the wire name "x_y_z" \(underscore format\): rename a subsystem/,
    );
    expect(buildRegistry({ root: remote, format: dotFormat }).all()).toHaveLength(2);
    // A child named like the meta-tools' prefix.
    const shadow = await bench([new MemorySubsystem('tools', [{ name: 'search' }])]);
    expect(() =>
      buildRegistry({
        root: shadow,
        format: underscoreFormat,
        own: new ToolSubsystem({ name: 'own', tools: metaTools(noCatalog) }),
      }),
    ).toThrow(/tools tools_search and tools\.search would share the wire name "tools_search"/);
  });

  it('gates on the capability the child declared, before the child sees the call', async () => {
    let calls = 0;
    const root = await bench([
      new MemorySubsystem('lab', [
        { name: 'exec', capability: 'jumperless.exec', run: () => ({ n: ++calls }) },
      ]),
    ]);
    const dispatcher = createDispatcher({ root, format: underscoreFormat });
    const denied = await rpcError(
      runTool(dispatcher, {
        name: 'lab_exec',
        caller: { id: 'anon', granted: new Set(['jumperless.read']) },
      }),
    );
    expect(denied.data).toMatchObject({ code: 1001, missing: ['jumperless.exec'] });
    expect(calls).toBe(0);
  });

  it('maps child failures: unavailable as a tool error, a child JSON-RPC refusal as that error, a hang as a timeout', async () => {
    const audit: AuditEvent[] = [];
    const root = await bench([
      new MemorySubsystem('esp32-p4', [
        {
          name: 'gone',
          run: () => {
            throw unavailable('esp32-p4', 'process exited');
          },
        },
        {
          name: 'picky',
          run: () => {
            throw new RpcError(-32602, 'Invalid arguments for tool picky: x is required', {
              tool: 'picky',
            });
          },
        },
        { name: 'hang', timeoutMs: 50, run: () => new Promise(() => {}) },
      ]),
    ]);
    const dispatcher = createDispatcher({
      root,
      format: underscoreFormat,
      audit: (event) => audit.push(event),
    });
    const gone = await runTool(dispatcher, { name: 'esp32-p4_gone', caller: operator });
    expect(gone.isError).toBe(true);
    expect(JSON.parse((gone.content[0] as { text: string }).text)).toMatchObject({
      code: 'unavailable',
      retryable: true,
      subsystem: 'esp32-p4',
    });
    const picky = await rpcError(runTool(dispatcher, { name: 'esp32-p4_picky', caller: operator }));
    expect(picky).toMatchObject({ code: -32602, message: /x is required/, data: { tool: 'picky' } });
    const hang = await runTool(dispatcher, { name: 'esp32-p4_hang', caller: operator });
    expect(JSON.parse((hang.content[0] as { text: string }).text)).toMatchObject({
      code: 'timeout',
      timeout_ms: 50,
    });
    expect(audit.map((e) => e.outcome)).toEqual(['tool_error', 'invalid_args', 'timeout']);
  });

  it('leaves out a late child whose tool collides with a name already taken, and says so once', async () => {
    const late = new MemorySubsystem('x', [{ name: 'y_z' }]);
    const root = await bench([late]);
    const lines: string[] = [];
    const registry = buildRegistry({ root, format: underscoreFormat, log: (line) => lines.push(line) });
    late.changeTools([{ name: 'y_z' }, { name: 'y.z' }]);
    late.changeTools([{ name: 'y_z' }, { name: 'y.z' }, { name: 'w' }]);
    expect(registry.all().map((t) => t.definition.name)).toEqual(['x_y_z', 'x_w']);
    expect(registry.get('x_y_z')?.group).toBe('x');
    expect(registry.problems).toEqual([
      'tools x.y_z and x.y.z would share the wire name "x_y_z" (underscore format): rename a subsystem',
    ]);
    expect(lines).toEqual([`left out: ${registry.problems[0]}`]);
  });

  it('tells listeners when the listed tools change (a drop, a return), and not otherwise', async () => {
    const esp = new MemorySubsystem('esp32-p4', [{ name: 'some_tool' }]);
    const root = await bench([esp, new MemorySubsystem('jumperless-a', [{ name: 'dac_set' }])]);
    const registry = buildRegistry({ root, format: underscoreFormat });
    let changes = 0;
    registry.onChange(() => changes++);
    esp.drop('exited');
    expect(changes).toBe(1);
    expect(registry.listed().map((t) => t.definition.name)).toEqual(['jumperless-a_dac_set']);
    expect(registry.get('esp32-p4_some_tool')).toBeDefined();
    const dispatcher = createDispatcher({ root, format: underscoreFormat });
    const answer = await runTool(dispatcher, { name: 'esp32-p4_some_tool', caller: operator });
    expect(JSON.parse((answer.content[0] as { text: string }).text)).toMatchObject({ code: 'unavailable' });
    await root.disconnect();
    await root.connect();
    expect(registry.listed().map((t) => t.definition.name)).toEqual([
      'esp32-p4_some_tool',
      'jumperless-a_dac_set',
    ]);
    const before = changes;
    expect(before).toBeGreaterThanOrEqual(2);
    esp.changeTools([{ name: 'some_tool' }]);
    expect(changes).toBe(before + 1); // a new catalog is a change, even under the same names
    registry.close();
    esp.drop();
    expect(changes).toBe(before + 1);
  });

  it('describes a catalog tool exactly as the single-board server lists it', () => {
    const board = new ToolSubsystem({ name: 'jumperless', tools: catalog });
    for (const tool of catalog) {
      const descriptor = board.tools().find((d) => d.name === tool.name);
      const { name: _name, ...definition } = describeTool(tool);
      expect(descriptor).toMatchObject({
        ...definition,
        hidden: tool.hidden === true,
        capability: tool.capability,
      });
    }
  });
});
