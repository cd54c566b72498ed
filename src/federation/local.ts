/**
 * Tools already bound to what they act on, as a subsystem that is always up: what a server built
 * around a given board client (tests, fixtures, the conformance server) serves as its root.
 */
import {
  JSONRPC,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  RpcError,
  type ToolDescriptor,
  type ToolResult,
} from '../contract/index.js';
import { type BoundCatalog, bindCatalog } from '../tools/local.js';
import type { AnyTool, ToolEnv } from '../tools/tool.js';
import type { InvokeContext, Subsystem, SubsystemEvent, SubsystemHealth } from './subsystem.js';

export interface LocalOptions {
  name: string;
  tools: readonly AnyTool[];
  env: ToolEnv;
  resources?: readonly Resource[];
  templates?: readonly ResourceTemplate[];
  prompts?: readonly Prompt[];
}

export class LocalSubsystem implements Subsystem {
  readonly name: string;
  private readonly catalog: BoundCatalog;

  constructor(private readonly options: LocalOptions) {
    this.name = options.name;
    this.catalog = bindCatalog(options.tools);
  }

  async connect(): Promise<void> {}
  async disconnect(): Promise<void> {}

  tools(): readonly ToolDescriptor[] {
    return this.catalog.descriptors;
  }

  resources(): readonly Resource[] {
    return this.options.resources ?? [];
  }

  templates(): readonly ResourceTemplate[] {
    return this.options.templates ?? [];
  }

  prompts(): readonly Prompt[] {
    return this.options.prompts ?? [];
  }

  invoke(tool: string, args: unknown, context: InvokeContext): Promise<ToolResult> {
    const local = this.catalog.get(tool);
    if (!local) return Promise.reject(new RpcError(JSONRPC.invalidParams, `Unknown tool: ${tool}`));
    return local.run(args, context, this.options.env);
  }

  health(): SubsystemHealth {
    return { name: this.name, status: 'ok' };
  }

  watch(_listener: (event: SubsystemEvent) => void): () => void {
    return () => {};
  }
}
