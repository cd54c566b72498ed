/**
 * tools/list as every transport builds it (listTools): what a caller may call and nothing else,
 * in each list mode, with the operator's toolsets, and toolset_enable turning one on at run time.
 */
import { describe, expect, it } from 'vitest';
import { catalog } from '../tools/index.js';
import { TOOLSETS, toolsetOf } from '../tools/toolsets.js';
import { CAPABILITIES, type Capability } from './capabilities.js';
import { createDispatcher } from './dispatcher.js';
import { JSONRPC } from './errors.js';
import { listTools } from './listTools.js';
import { runTool } from './runTool.js';
import { ToolSubsystem } from './toolSubsystem.js';

const everything = { id: 'operator', granted: new Set<Capability>(CAPABILITIES) };
const names = (list: { tools: { name: string }[] }) => list.tools.map((tool) => tool.name);

describe('listTools', () => {
  it('lists every catalog tool for the operator, python_exec included, and no more', () => {
    const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: catalog }) });
    expect(names(listTools(dispatcher, { caller: everything }))).toEqual(catalog.map((tool) => tool.name));
  });

  it('lists only what the caller may call: jumperless.read alone gets no connect, no python_exec', () => {
    const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: catalog }) });
    const reader = { granted: new Set<Capability>(['jumperless.read']) };
    const listed = names(listTools(dispatcher, { caller: reader }));
    expect(listed).toContain('state_get');
    expect(listed).not.toContain('connect');
    expect(listed).not.toContain('python_exec');
    expect(listed).toEqual(catalog.filter((t) => t.capability === 'jumperless.read').map((t) => t.name));
    // A gateway in front of us gates python_exec as we do: the list says what it needs.
    const exec = listTools(dispatcher, { caller: everything }).tools.find((t) => t.name === 'python_exec');
    expect(exec?._meta).toEqual({ 'io.github.jumperless-mcp/capability': 'jumperless.exec' });
    const noExec = { granted: new Set<Capability>(CAPABILITIES.filter((c) => c !== 'jumperless.exec')) };
    expect(names(listTools(dispatcher, { caller: noExec }))).not.toContain('python_exec');
  });

  it('leaves output schemas, titles and default hints out unless asked', () => {
    const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: catalog }) });
    const [first] = listTools(dispatcher, { caller: everything }).tools;
    expect(first).not.toHaveProperty('outputSchema');
    expect(first).not.toHaveProperty('title');
    expect(first?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    const destructive = listTools(dispatcher, { caller: everything }).tools.find(
      (t) => t.name === 'file_delete',
    );
    // Every hint at its default (destructive, open world): no annotations at all, which says the same.
    expect(destructive).not.toHaveProperty('annotations');
    const withSchemas = listTools(dispatcher, { caller: everything, outputSchemas: true }).tools[0];
    expect(withSchemas?.outputSchema).toMatchObject({ type: 'object' });
    const operatorChoice = createDispatcher({
      root: new ToolSubsystem({ name: 'local', tools: catalog }),
      outputSchemas: true,
    });
    expect(listTools(operatorChoice, { caller: everything }).tools[0]).toHaveProperty('outputSchema');
  });

  it('names mode: names and one line; discovery: the two meta-tools', () => {
    const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: catalog }) });
    const named = listTools(dispatcher, { caller: everything, mode: 'names' });
    expect(names(named)).toEqual([...catalog.map((t) => t.name), 'tools_search', 'tools_describe']);
    expect(named.tools[0]).toEqual({
      name: catalog[0]?.name,
      description: expect.any(String),
      inputSchema: { type: 'object' },
    });
    expect(names(listTools(dispatcher, { caller: everything, mode: 'discovery' }))).toEqual([
      'tools_search',
      'tools_describe',
    ]);
    // A client that asks for deferred tools gets discovery when the operator chose no mode.
    const asked = listTools(dispatcher, {
      caller: everything,
      clientExperimental: { 'x-deferred-tools': {} },
    });
    expect(names(asked)).toEqual(['tools_search', 'tools_describe']);
  });

  it('tools_describe and tools_search show only what the caller may call', async () => {
    const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: catalog }) });
    const reader = { id: 'reader', granted: new Set<Capability>(['jumperless.read']) };
    const described = await runTool(dispatcher, {
      name: 'tools_describe',
      arguments: { names: ['state_get', 'python_exec'] },
      caller: reader,
    });
    expect(described.structuredContent).toMatchObject({
      tools: [{ name: 'state_get' }],
      unknown: ['python_exec'],
    });
    const found = await runTool(dispatcher, {
      name: 'tools_search',
      arguments: { query: 'run micropython code', limit: 50 },
      caller: reader,
    });
    const hits = (found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(hits).not.toContain('python_exec');
  });
});

describe('toolsets', () => {
  it('puts every catalog group in a toolset', () => {
    for (const tool of catalog) expect(toolsetOf(tool.group), tool.name).toBeDefined();
    expect(Object.keys(TOOLSETS)).toEqual([
      'wiring',
      'power',
      'measure',
      'io',
      'display',
      'user',
      'slots',
      'files',
      'system',
      'exec',
    ]);
  });

  it('serves only the chosen toolsets, refuses the rest by name, and turns one on at run time', async () => {
    const dispatcher = createDispatcher({
      root: new ToolSubsystem({ name: 'local', tools: catalog }),
      selection: { toolsets: ['measure'] },
    });
    let changes = 0;
    dispatcher.registry.onChange(() => changes++);
    const measure = catalog.filter((t) => toolsetOf(t.group) === 'measure').map((t) => t.name);
    expect(names(listTools(dispatcher, { caller: everything }))).toEqual(['toolset_enable', ...measure]);
    await expect(
      runTool(dispatcher, { name: 'dac_set', arguments: { channel: 'DAC0', volts: 1 }, caller: everything }),
    ).rejects.toMatchObject({ code: JSONRPC.invalidParams, message: expect.stringMatching(/toolset power/) });

    const listing = await runTool(dispatcher, { name: 'toolset_enable', arguments: {}, caller: everything });
    expect(listing.structuredContent).toMatchObject({ changed: false });
    expect(changes).toBe(0);
    const turned = await runTool(dispatcher, {
      name: 'toolset_enable',
      arguments: { toolset: 'power' },
      caller: everything,
    });
    expect(turned.structuredContent).toMatchObject({
      changed: true,
      toolsets: expect.arrayContaining([{ name: 'power', enabled: true, holds: expect.any(String) }]),
    });
    expect(changes).toBe(1);
    expect(names(listTools(dispatcher, { caller: everything }))).toContain('dac_set');
    await expect(
      runTool(dispatcher, { name: 'toolset_enable', arguments: { toolset: 'nope' }, caller: everything }),
    ).rejects.toMatchObject({ code: JSONRPC.invalidParams });
  });

  it('adds single tools, takes tools out, and keeps to read-only tools', () => {
    const tools = createDispatcher({
      root: new ToolSubsystem({ name: 'local', tools: catalog }),
      selection: { tools: ['state_get', 'connect'] },
    });
    expect(names(listTools(tools, { caller: everything }))).toEqual([
      'toolset_enable',
      'connect',
      'state_get',
    ]);
    const excluded = createDispatcher({
      root: new ToolSubsystem({ name: 'local', tools: catalog }),
      selection: { excludeTools: ['python_exec'] },
    });
    expect(names(listTools(excluded, { caller: everything }))).not.toContain('python_exec');
    const readOnly = createDispatcher({
      root: new ToolSubsystem({ name: 'local', tools: catalog }),
      selection: { readOnly: true },
    });
    const listed = names(listTools(readOnly, { caller: everything }));
    expect(listed).toEqual(catalog.filter((t) => t.kind === 'read').map((t) => t.name));
    expect(() =>
      createDispatcher({
        root: new ToolSubsystem({ name: 'local', tools: catalog }),
        selection: { toolsets: ['wirng'] },
      }),
    ).toThrow(/unknown toolset wirng/);
  });
});
