/**
 * FederationAggregator (dispatch notes §6): several subsystems behind one, each child's tools
 * prefixed `<child>.`; itself a Subsystem, so federations nest. It keeps every child's last
 * known catalog: a child that drops keeps its tools in the inbound table, marked unavailable
 * (a call answers `unavailable` at once instead of hanging), and is reconnected with backoff;
 * every change of the catalog is announced with a `tools_changed` event, which the server turns
 * into `notifications/tools/list_changed`. Health is the worst child's, with each child's own.
 */

import { RpcError, unavailable } from '../core/errors.js';
import type { ToolResult } from '../core/render.js';
import type { Prompt, Resource, ResourceTemplate } from '../core/resources.js';
import { type Subsystem, type SubsystemEvent, type SubsystemHealth, worstStatus } from '../core/subsystem.js';
import type { CallContext, ToolDescriptor } from '../core/toolDefinition.js';
import { FederationError } from './errors.js';
import { checkSubsystemName } from './wireNames.js';

export interface AggregatorOptions {
  /** kebab-case; the prefix of every tool when this federation is nested in another. */
  name: string;
  children: readonly Subsystem[];
  ring?: string;
  /** Reconnect backoff: the first delay, doubling up to the max. Default 250 ms .. 10 s. */
  reconnectDelayMs?: { initial: number; max: number };
  /** How long one connect attempt may take. Default 15 s. */
  connectTimeoutMs?: number;
  /** Where state changes are told (default stderr). */
  log?: (line: string) => void;
}

type SlotState = 'idle' | 'connecting' | 'up' | 'down';

interface Slot {
  child: Subsystem;
  state: SlotState;
  /** The child's catalog, prefixed, as last learnt; and the same marked unavailable. */
  up: readonly ToolDescriptor[];
  down: readonly ToolDescriptor[];
  lastError: string | undefined;
  failures: number;
  retryAt: number | undefined;
  timer: NodeJS.Timeout | undefined;
  /** Bumped by every connect attempt and disconnect, so a stale attempt's outcome is ignored. */
  epoch: number;
  /** The first connect, while it runs: a call to a catalog known in advance waits for it. */
  first: Promise<void> | undefined;
  /** The child's catalog as last prefixed (the same array again needs no new prefixing). */
  source: readonly ToolDescriptor[] | undefined;
  /** The child's resources, templates and prompts, prefixed, by the list the child handed out. */
  prefixed: WeakMap<readonly object[], readonly object[]>;
}

export class FederationAggregator implements Subsystem {
  readonly name: string;
  readonly ring: string | undefined;
  private readonly slots: Slot[];
  private readonly byName = new Map<string, Slot>();
  private readonly listeners = new Set<(event: SubsystemEvent) => void>();
  private readonly delays: { initial: number; max: number };
  private readonly connectTimeoutMs: number;
  private readonly log: (line: string) => void;
  private catalog: readonly ToolDescriptor[] | undefined;
  private running = false;

  constructor(options: AggregatorOptions) {
    checkSubsystemName(options.name);
    if (options.ring !== undefined) checkSubsystemName(options.ring, 'ring id');
    this.name = options.name;
    this.ring = options.ring;
    this.delays = options.reconnectDelayMs ?? { initial: 250, max: 10_000 };
    this.connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
    this.log = options.log ?? ((line) => process.stderr.write(`jumperless-mcp: ${line}\n`));
    this.slots = options.children.map((child) => {
      checkSubsystemName(child.name);
      if (this.byName.has(child.name)) {
        throw new FederationError(`federation ${this.name} has two children named "${child.name}"`);
      }
      const slot: Slot = {
        child,
        state: 'idle',
        up: [],
        down: [],
        lastError: undefined,
        failures: 0,
        retryAt: undefined,
        timer: undefined,
        epoch: 0,
        first: undefined,
        source: undefined,
        prefixed: new WeakMap(),
      };
      this.byName.set(child.name, slot);
      // A child whose catalog is known before it connects (a board here) is listed from the start.
      this.prefix(slot);
      child.watch((event) => this.onChildEvent(slot, event));
      return slot;
    });
  }

  /** Connects every child at once and resolves when each has connected or failed (a failed one retries by itself). */
  async connect(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await Promise.all(
      this.slots.map((slot) => {
        slot.first = this.attempt(slot).finally(() => {
          slot.first = undefined;
        });
        return slot.first;
      }),
    );
  }

  async disconnect(): Promise<void> {
    this.running = false;
    await Promise.all(
      this.slots.map(async (slot) => {
        clearTimeout(slot.timer);
        slot.epoch++;
        slot.state = 'idle';
        slot.retryAt = undefined;
        await slot.child.disconnect().catch(() => {});
      }),
    );
    this.changed();
  }

  tools(): readonly ToolDescriptor[] {
    this.catalog ??= this.slots.flatMap((slot) => (this.listable(slot) ? slot.up : slot.down));
    return this.catalog;
  }

  /** Up, or not yet tried (its catalog was known in advance, and its first connect may still work). */
  private listable(slot: Slot): boolean {
    return (
      slot.state === 'up' || ((slot.state === 'idle' || slot.state === 'connecting') && slot.failures === 0)
    );
  }

  /** Every child's resources, each URI with the child's name as its first segment (`jumperless://a/board/state`). */
  resources(): readonly Resource[] {
    return this.slots.flatMap((slot) =>
      this.prefixedOnce(slot, slot.child.resources?.(), (resource) => ({
        ...resource,
        uri: prefixUri(slot.child.name, resource.uri),
      })),
    );
  }

  templates(): readonly ResourceTemplate[] {
    return this.slots.flatMap((slot) =>
      this.prefixedOnce(slot, slot.child.templates?.(), (template) => ({
        ...template,
        uriTemplate: prefixUri(slot.child.name, template.uriTemplate),
      })),
    );
  }

  /** Every child's prompts, named `<child>.<prompt>`, each saying which device it is for. */
  prompts(): readonly Prompt[] {
    return this.slots.flatMap((slot) =>
      this.prefixedOnce(slot, slot.child.prompts?.(), (prompt) => prefixPrompt(slot.child.name, prompt)),
    );
  }

  /**
   * A child's list prefixed once per list it hands out (a read or list asks on every request); per
   * child, since children may hand out the same list (every board has the same prompts).
   */
  private prefixedOnce<T extends object>(
    slot: Slot,
    items: readonly T[] | undefined,
    prefix: (item: T) => T,
  ): readonly T[] {
    if (!items) return [];
    let prefixed = slot.prefixed.get(items) as readonly T[] | undefined;
    if (!prefixed) {
      prefixed = items.map(prefix);
      slot.prefixed.set(items, prefixed);
    }
    return prefixed;
  }

  async invoke(tool: string, args: unknown, context: CallContext): Promise<ToolResult> {
    const dot = tool.indexOf('.');
    const slot = dot > 0 ? this.byName.get(tool.slice(0, dot)) : undefined;
    if (!slot) throw new RpcError(-32602, `Unknown tool: ${tool}`);
    // A call made while the child first connects waits for it (bounded by the connect timeout
    // and by the call's own deadline).
    if (slot.state !== 'up' && slot.first) await untilSignal(slot.first, context.signal);
    if (slot.state !== 'up') throw unavailable(slot.child.name, this.why(slot));
    return slot.child.invoke(tool.slice(dot + 1), args, context);
  }

  health(): SubsystemHealth {
    const children = this.slots.map((slot) => this.childHealth(slot));
    const status = worstStatus(children.map((child) => child.status));
    const troubled = children.filter((child) => child.status !== 'ok').map((child) => child.name);
    return {
      name: this.name,
      status,
      ...(troubled.length > 0 ? { detail: `not ok: ${troubled.join(', ')}` } : {}),
      ...(this.ring ? { ring: this.ring } : {}),
      children,
    };
  }

  watch(listener: (event: SubsystemEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private childHealth(slot: Slot): SubsystemHealth {
    const own = slot.child.health();
    if (slot.state === 'up') return own;
    return {
      ...own,
      status: 'down',
      detail: this.why(slot),
      reconnect: {
        failures: slot.failures,
        ...(slot.retryAt === undefined ? {} : { next_in_ms: Math.max(0, slot.retryAt - Date.now()) }),
      },
    };
  }

  private why(slot: Slot): string {
    if (slot.state === 'connecting')
      return slot.lastError ? `reconnecting after: ${slot.lastError}` : 'connecting';
    if (slot.state === 'idle') return 'not started';
    return slot.lastError ?? 'down';
  }

  private async attempt(slot: Slot): Promise<void> {
    const epoch = ++slot.epoch;
    slot.state = 'connecting';
    slot.retryAt = undefined;
    try {
      await withTimeout(slot.child.connect(), this.connectTimeoutMs);
      if (epoch !== slot.epoch) return;
      const wasListed = this.listable(slot);
      slot.state = 'up';
      if (slot.failures > 0 || slot.lastError) this.log(`${this.name}: ${slot.child.name} is back`);
      slot.failures = 0;
      slot.lastError = undefined;
      // A catalog listed in advance and unchanged: nothing for clients to list again.
      if (wasListed && slot.source === slot.child.tools()) return;
      this.learn(slot);
    } catch (error) {
      if (epoch !== slot.epoch) return;
      slot.failures++;
      slot.lastError = error instanceof Error ? error.message : String(error);
      slot.state = 'down';
      await slot.child.disconnect().catch(() => {});
      if (epoch !== slot.epoch) return;
      this.schedule(slot);
      this.changed();
    }
  }

  private onChildEvent(slot: Slot, event: SubsystemEvent): void {
    if (event.type === 'log') {
      const text = `${slot.child.name}: ${event.text}`;
      for (const listener of this.listeners) listener({ ...event, text });
      return;
    }
    if (slot.state !== 'up') return;
    if (event.type === 'tools_changed') {
      this.learn(slot);
      return;
    }
    slot.epoch++;
    slot.state = 'down';
    slot.failures = 0;
    slot.lastError = event.reason;
    this.log(`${this.name}: ${slot.child.name} dropped (${event.reason}); reconnecting`);
    this.changed();
    const epoch = slot.epoch;
    void slot.child
      .disconnect()
      .catch(() => {})
      .then(() => {
        if (epoch === slot.epoch) this.schedule(slot);
      });
  }

  private schedule(slot: Slot): void {
    if (!this.running) return;
    const delay = Math.min(this.delays.max, this.delays.initial * 2 ** Math.min(slot.failures, 30));
    if (slot.failures === 1) this.log(`${this.name}: ${slot.child.name}: ${slot.lastError}; retrying`);
    slot.retryAt = Date.now() + delay;
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => void this.attempt(slot), delay);
    slot.timer.unref();
  }

  /** Takes the child's catalog again (prefixing is cached until it changes). */
  private learn(slot: Slot): void {
    this.prefix(slot);
    this.changed();
  }

  private prefix(slot: Slot): void {
    const prefix = `${slot.child.name}.`;
    const source = slot.child.tools();
    if (source === slot.source) return;
    slot.source = source;
    slot.up = source.map((tool) => ({ ...tool, name: prefix + tool.name }));
    slot.down = slot.up.map((tool) => ({ ...tool, available: false }));
  }

  private changed(): void {
    this.catalog = undefined;
    for (const listener of this.listeners) listener({ type: 'tools_changed' });
  }
}

/** `scheme://rest` inside child `name` is `scheme://name/rest` outside it. */
function prefixUri(name: string, uri: string): string {
  const at = uri.indexOf('://');
  return at < 0 ? `${name}/${uri}` : `${uri.slice(0, at + 3)}${name}/${uri.slice(at + 3)}`;
}

function prefixPrompt(name: string, prompt: Prompt): Prompt {
  const device = `This is about the device ${name}: use its tools (their names start with ${name}).`;
  return {
    ...prompt,
    name: `${name}.${prompt.name}`,
    description: `${prompt.description} (on ${name})`,
    get: (args) => {
      const got = prompt.get(args);
      const [first, ...rest] = got.messages;
      if (first?.content.type !== 'text') return got;
      return {
        ...got,
        messages: [
          { ...first, content: { type: 'text', text: `${device}\n${first.content.text}` } },
          ...rest,
        ],
      };
    },
  };
}

/** Waits for `work` to settle (a failure counts), or rejects with the signal's reason once it fires. */
function untilSignal(work: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    const settled = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(settled, settled);
  });
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
