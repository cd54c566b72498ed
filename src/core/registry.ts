/**
 * The tools a server offers, by wire name (DESIGN.md §3): the exact inbound table over the root
 * subsystem's catalog plus the server's own tools. A single board is a root whose names are plain;
 * a bench is an aggregator whose names are dotted and take the wire format. Every entry is what
 * runTool needs and nothing more: the definition `tools/list` shows, the capability, kind and
 * limits the gateway enforces, an argument check when the tool is in this process, and `run`.
 */
import { FederationError } from '../federation/errors.js';
import { type WireNameTranslator, WireTable } from '../federation/wireNames.js';
import type { Capability } from './capabilities.js';
import type { ToolResult } from './render.js';
import type { Subsystem } from './subsystem.js';
import {
  type CallContext,
  kindOf,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolDescriptor,
  type ToolKind,
} from './toolDefinition.js';

export interface ToolEntry {
  readonly definition: ToolDefinition;
  /** The dotted internal name (`jumperless-a.dac_set`; a single board's are plain), as the socket shows it. */
  readonly internal: string;
  /** Its tool group (`power`), or the subsystem path of a remote child's tool. */
  readonly group: string;
  /** The server's own (meta-tools, fixtures), not the root's: a gateway in front never takes these. */
  readonly own: boolean;
  readonly capability: Capability;
  readonly kind: ToolKind;
  readonly timeoutMs?: number;
  readonly hidden: boolean;
  readonly maxConcurrent?: number;
  /** Checks the arguments before the gate (tools in this process): the value `run` gets. */
  readonly parse?: (args: unknown) => unknown;
  /** The question to ask before running on these (parsed) arguments, when they are a hazard. */
  readonly hazard?: ToolDescriptor['hazard'];
  run(args: unknown, context: CallContext): Promise<ToolResult>;
  /** Calls running now (for `maxConcurrent`). */
  running: number;
}

export interface Registry {
  /** By wire name. */
  get(name: string): ToolEntry | undefined;
  /** By internal dotted name. */
  internal(name: string): ToolEntry | undefined;
  /** Tools shown in lists: everything but hidden and unavailable tools, in catalog order. */
  listed(): readonly ToolEntry[];
  /** Every tool, hidden ones included. */
  all(): readonly ToolEntry[];
  /** Tells listeners when the listed tools change (they send `tools/list_changed`). */
  onChange(listener: () => void): () => void;
  /** Tells the listeners that what is listed changed for another reason (a toolset turned on). */
  announce(): void;
  /** What the last rebuild left out (a late child colliding with a name already taken). */
  readonly problems: readonly string[];
  /** Stops following the root's catalog. */
  close(): void;
}

export interface RegistryOptions {
  root: Subsystem;
  format: WireNameTranslator;
  /** The server's own tools (meta-tools, fixtures), under their own names, in the same table. */
  own?: Subsystem;
  /** Where a rebuild's problems are told (default stderr). */
  log?: (line: string) => void;
}

type Item = { own: ToolDescriptor } | { child: ToolDescriptor };

/**
 * Builds the table now (the root's catalog as it is); a problem (two tools sharing a wire name, a
 * name clients cannot take) refuses to start with a FederationError that names them. Later
 * catalog changes rebuild it, leave out what no longer fits (said on the log) and notify.
 */
export function buildRegistry(options: RegistryOptions): Registry {
  const { root } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`jumperless-mcp: ${line}\n`));
  // Plain names (a single board, the server's own tools) stay as they are; dotted ones take the format.
  const translator: WireNameTranslator = {
    ...options.format,
    outbound: (name) => (name.includes('.') ? options.format.outbound(name) : name),
  };
  const entries = new WeakMap<object, ToolEntry>();
  const listeners = new Set<() => void>();

  const entryOf = (item: Item, wire: string): ToolEntry => {
    const key = 'own' in item ? item.own : item.child;
    let entry = entries.get(key);
    if (!entry) {
      entry =
        'own' in item ? ownEntry(options.own as Subsystem, item.own) : childEntry(root, item.child, wire);
      entries.set(key, entry);
    }
    return entry;
  };

  let byWire = new Map<string, ToolEntry>();
  let byInternal = new Map<string, ToolEntry>();
  let all: ToolEntry[] = [];
  let listed: ToolEntry[] = [];
  let problems: readonly string[] = [];

  /** Rebuilds the table; true when the listed tools changed. */
  const build = (): boolean => {
    const items: Item[] = [
      ...(options.own?.tools() ?? []).map((own) => ({ own })),
      ...root.tools().map((child) => ({ child })),
    ];
    const table = WireTable.build(
      items,
      (item) => ('own' in item ? item.own.name : item.child.name),
      translator,
    );
    byWire = new Map();
    byInternal = new Map();
    const shown: ToolEntry[] = [];
    for (const { wire, item } of table.entries()) {
      const entry = entryOf(item, wire);
      byWire.set(wire, entry);
      byInternal.set(entry.internal, entry);
      const available = 'own' in item || item.child.available !== false;
      if (available && !entry.hidden) shown.push(entry);
    }
    all = [...byWire.values()];
    const changed = shown.length !== listed.length || shown.some((entry, i) => entry !== listed[i]);
    listed = shown;
    problems = table.problems;
    return changed;
  };

  build();
  if (problems.length > 0) {
    throw new FederationError(`cannot name the tools:\n  ${problems.join('\n  ')}`);
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
    internal: (name) => byInternal.get(name),
    listed: () => listed,
    all: () => all,
    get problems() {
      return problems;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    announce() {
      for (const listener of listeners) listener();
    },
    close: () => unwatch(),
  };
}

function ownEntry(own: Subsystem, descriptor: ToolDescriptor): ToolEntry {
  return entryFrom(descriptor, descriptor.name, true, (args, context) =>
    own.invoke(descriptor.name, args, context),
  );
}

function childEntry(root: Subsystem, descriptor: ToolDescriptor, wire: string): ToolEntry {
  return entryFrom(descriptor, wire, false, (args, context) => root.invoke(descriptor.name, args, context));
}

function entryFrom(descriptor: ToolDescriptor, wire: string, own: boolean, run: ToolEntry['run']): ToolEntry {
  const annotations = fullAnnotations(descriptor);
  return {
    internal: descriptor.name,
    own,
    group: descriptor.group ?? descriptor.name.slice(0, Math.max(0, descriptor.name.lastIndexOf('.'))),
    definition: {
      name: wire,
      title: annotations.title,
      description: descriptor.description,
      inputSchema: descriptor.inputSchema,
      ...(descriptor.outputSchema ? { outputSchema: descriptor.outputSchema } : {}),
      annotations,
      ...(descriptor._meta ? { _meta: descriptor._meta } : {}),
    },
    capability: descriptor.capability,
    kind: kindOf(annotations),
    ...(descriptor.timeoutMs === undefined ? {} : { timeoutMs: descriptor.timeoutMs }),
    hidden: descriptor.hidden,
    ...(descriptor.maxConcurrent === undefined ? {} : { maxConcurrent: descriptor.maxConcurrent }),
    ...(descriptor.parse ? { parse: descriptor.parse } : {}),
    ...(descriptor.hazard ? { hazard: descriptor.hazard } : {}),
    run,
    running: 0,
  };
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
