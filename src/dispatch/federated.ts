/**
 * Federation in the dispatch core (DESIGN.md §3): a federated server's registry is the exact
 * inbound table over its root subsystem's catalog. Each entry is a tool named by its wire name
 * whose handler is `root.invoke(<internal dotted name>)`, so a federated call takes the same
 * runTool pipeline as a local one (lookup, capability gate, concurrency, deadline, audit) and its
 * result, rendered by the child, is passed on as is. A board in this process is a single-board
 * dispatcher behind the Subsystem contract (`toolDescriptor`, `boardRunner`).
 */
import { z } from 'zod';
import {
  FederationError,
  type InvokeContext,
  type Subsystem,
  type SubsystemResult,
  type ToolDescriptor,
  type WireNameTranslator,
  WireTable,
} from '../federation/index.js';
import { type AnyTool, CAPABILITIES, type ToolAnnotations, type ToolKind } from '../tools/tool.js';
import { describeTool, presetDefinition } from './describe.js';
import type { Dispatcher } from './dispatcher.js';
import type { RegisteredTool, Registry } from './registry.js';
import { type ClientBridge, runTool } from './runTool.js';

export interface FederatedRegistry extends Registry {
  onChange(listener: () => void): () => void;
  /** What the last rebuild left out (a late child colliding with a name already taken). */
  readonly problems: readonly string[];
  /** Stops following the root's catalog. */
  close(): void;
}

export interface FederatedRegistryOptions {
  /** Connected: the table is built from its catalog at once. */
  root: Subsystem;
  format: WireNameTranslator;
  /** The server's own tools (the meta-tools), under their own names, in the same table. */
  own?: readonly AnyTool[];
  /** Where a rebuild's problems are told (default stderr). */
  log?: (line: string) => void;
}

type Item = { own: AnyTool } | { child: ToolDescriptor };

/** Arguments pass unchecked: the child owns its schema and answers invalid ones itself. */
const anyObject = z.object({}).catchall(z.unknown());

/**
 * Builds the table once the root is connected; any problem (two tools sharing a wire name, a
 * name clients cannot take) refuses to start with a FederationError that names them. Later
 * catalog changes rebuild it, leave out what no longer fits (said on the log) and notify.
 */
export function federatedRegistry(options: FederatedRegistryOptions): FederatedRegistry {
  const { root } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`jumperless-mcp: ${line}\n`));
  // Own tools keep their names; child tools (always dotted) take the wire format.
  const translator: WireNameTranslator = {
    ...options.format,
    outbound: (name) => (name.includes('.') ? options.format.outbound(name) : name),
  };
  const entries = new WeakMap<object, RegisteredTool>();
  const ids = new WeakMap<RegisteredTool, number>();
  let nextId = 0;
  const listeners = new Set<() => void>();

  const entryOf = (item: Item, wire: string): RegisteredTool => {
    const key = 'own' in item ? item.own : item.child;
    let entry = entries.get(key);
    if (!entry) {
      entry = 'own' in item ? { tool: item.own, running: 0 } : childEntry(root, item.child, wire);
      entries.set(key, entry);
      ids.set(entry, nextId++);
    }
    return entry;
  };

  let byWire = new Map<string, RegisteredTool>();
  let all: AnyTool[] = [];
  let listed: AnyTool[] = [];
  let signature = '';
  let problems: readonly string[] = [];

  /** Rebuilds the table; true when the listed tools changed. */
  const build = (): boolean => {
    const items: Item[] = [
      ...(options.own ?? []).map((own) => ({ own })),
      ...root.tools().map((child) => ({ child })),
    ];
    const table = WireTable.build(
      items,
      (item) => ('own' in item ? item.own.name : item.child.name),
      translator,
    );
    byWire = new Map();
    const shown: RegisteredTool[] = [];
    for (const { wire, item } of table.entries()) {
      const entry = entryOf(item, wire);
      byWire.set(wire, entry);
      const available = 'own' in item || item.child.available !== false;
      if (available && !entry.tool.hidden) shown.push(entry);
    }
    all = [...byWire.values()].map((entry) => entry.tool);
    listed = shown.map((entry) => entry.tool);
    const before = signature;
    signature = shown.map((entry) => ids.get(entry)).join(',');
    problems = table.problems;
    return before !== signature;
  };

  build();
  if (problems.length > 0) {
    throw new FederationError(`cannot name the federated tools:\n  ${problems.join('\n  ')}`);
  }
  const told = new Set<string>();
  const unwatch = root.watch((event) => {
    if (event.type !== 'tools_changed') return;
    const changed = build();
    for (const problem of problems) {
      if (!told.has(problem)) log(`left out: ${problem}`);
      told.add(problem);
    }
    if (changed) for (const listener of listeners) listener();
  });

  return {
    get: (wire) => byWire.get(wire),
    listed: () => listed,
    all: () => all,
    get problems() {
      return problems;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => unwatch(),
  };
}

function childEntry(root: Subsystem, descriptor: ToolDescriptor, wire: string): RegisteredTool {
  const annotations = fullAnnotations(descriptor);
  const tool: AnyTool = {
    name: wire,
    title: annotations.title,
    description: descriptor.description,
    group: descriptor.name.slice(0, descriptor.name.lastIndexOf('.')),
    input: anyObject,
    output: anyObject,
    kind: kindOf(annotations),
    capability: descriptor.capability,
    ...(descriptor.timeoutMs === undefined ? {} : { timeoutMs: descriptor.timeoutMs }),
    ...(descriptor.hidden ? { hidden: true } : {}),
    // The DispatchContext runTool passes carries all an InvokeContext has (signal, progress, confirm, client).
    handle: (args, context) => root.invoke(descriptor.name, args, context),
  };
  presetDefinition(tool, {
    name: wire,
    title: annotations.title,
    description: descriptor.description,
    inputSchema: descriptor.inputSchema,
    ...(descriptor.outputSchema ? { outputSchema: descriptor.outputSchema } : {}),
    annotations,
  });
  return { tool, running: 0, passthrough: true };
}

/** Hints a child left out take MCP's defaults (2025-06-18 tool annotations). */
function fullAnnotations(descriptor: ToolDescriptor): ToolAnnotations {
  const given = descriptor.annotations;
  const readOnly = given.readOnlyHint ?? false;
  return {
    title: descriptor.title ?? given.title ?? descriptor.name,
    readOnlyHint: readOnly,
    destructiveHint: given.destructiveHint ?? !readOnly,
    idempotentHint: given.idempotentHint ?? false,
    openWorldHint: given.openWorldHint ?? true,
  };
}

/** The inverse of annotationsFor (tools/tool.ts): what dispatch needs the kind for is "may it change the board". */
function kindOf(annotations: ToolAnnotations): ToolKind {
  if (annotations.readOnlyHint) return 'read';
  if (annotations.destructiveHint) return 'destructive';
  return annotations.openWorldHint ? 'physical' : 'write';
}

/** A catalog tool as a subsystem describes it: exactly what the single-board server lists, plus what the gateway enforces. */
export function toolDescriptor(tool: AnyTool): ToolDescriptor {
  const definition = describeTool(tool);
  return {
    name: tool.name,
    title: definition.title,
    description: definition.description,
    inputSchema: definition.inputSchema,
    ...(definition.outputSchema ? { outputSchema: definition.outputSchema } : {}),
    annotations: definition.annotations,
    hidden: tool.hidden === true,
    capability: tool.capability,
    ...(tool.timeoutMs === undefined ? {} : { timeoutMs: tool.timeoutMs }),
  };
}

const GATEWAY = { id: 'federation', granted: new Set(CAPABILITIES) };

/**
 * Runs a tool of a single-board dispatcher for a gateway that has already gated, timed and
 * audited the call (so this inner run grants everything and is not audited again): validation,
 * the firmware check, the board's own queue and the rendering are the single-board server's.
 */
export function boardRunner(
  dispatcher: Dispatcher,
): (tool: string, args: unknown, context: InvokeContext) => Promise<SubsystemResult> {
  return (name, args, context) =>
    runTool(dispatcher, {
      name,
      arguments: args,
      caller: GATEWAY,
      signal: context.signal,
      onProgress: (progress, total, message) => context.progress(progress, total, message),
      ...(context.confirm ? { confirm: context.confirm } : {}),
      ...(context.client ? { client: context.client as ClientBridge } : {}),
    });
}
