/**
 * Test support: a subsystem held in memory whose tools are plain functions, with switches to make
 * its connection fail or drop, for the aggregator's and the registry's tests.
 */

import type { ToolResult } from '../../src/core/render.js';
import { renderResult } from '../../src/core/render.js';
import type { Subsystem, SubsystemEvent, SubsystemHealth } from '../../src/core/subsystem.js';
import type { CallContext, ToolDescriptor } from '../../src/core/toolDefinition.js';

export type MemoryTool = Partial<ToolDescriptor> & {
  name: string;
  run?(args: unknown, context: CallContext): Promise<Record<string, unknown>> | Record<string, unknown>;
};

export class MemorySubsystem implements Subsystem {
  connected = false;
  connects = 0;
  /** Connect attempts left to refuse. */
  refuse = 0;
  /** Makes connect wait until this resolves. */
  gate: Promise<void> | undefined;
  private catalog: ToolDescriptor[] = [];
  private runners = new Map<string, MemoryTool['run']>();
  private readonly listeners = new Set<(event: SubsystemEvent) => void>();

  constructor(
    readonly name: string,
    tools: MemoryTool[] = [],
    readonly ring?: string,
  ) {
    this.setTools(tools);
  }

  setTools(tools: MemoryTool[]): void {
    this.runners = new Map(tools.map((tool) => [tool.name, tool.run]));
    this.catalog = tools.map(({ run: _run, ...tool }) => ({
      description: `${tool.name} of ${this.name}`,
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      hidden: false,
      capability: 'jumperless.read',
      ...tool,
    }));
  }

  /** Changes the catalog while connected, as a child's own list_changed would. */
  changeTools(tools: MemoryTool[]): void {
    this.setTools(tools);
    this.emit({ type: 'tools_changed' });
  }

  /** Loses the connection, as a child process that exits would. */
  drop(reason = 'gone'): void {
    this.connected = false;
    this.emit({ type: 'down', reason });
  }

  async connect(): Promise<void> {
    this.connects++;
    await this.gate;
    if (this.refuse > 0) {
      this.refuse--;
      throw new Error(`${this.name} refused`);
    }
    this.connected = true;
  }

  async disconnect(): Promise<void> {
    this.connected = false;
  }

  tools(): readonly ToolDescriptor[] {
    return this.catalog;
  }

  async invoke(tool: string, args: unknown, context: CallContext): Promise<ToolResult> {
    if (!this.connected) throw new Error(`${this.name} is not connected`);
    const run = this.runners.get(tool);
    if (!this.runners.has(tool)) throw new Error(`${this.name} has no tool ${tool}`);
    return renderResult(run ? await run(args, context) : { tool: `${this.name}.${tool}`, args });
  }

  health(): SubsystemHealth {
    return {
      name: this.name,
      status: this.connected ? 'ok' : 'down',
      ...(this.ring ? { ring: this.ring } : {}),
    };
  }

  watch(listener: (event: SubsystemEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: SubsystemEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
