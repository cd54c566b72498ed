/**
 * An ATD server over its native socket (DESIGN.md §4 Protocol, dispatch notes §2.1) as a bench
 * child, as mcpChild.ts is an MCP server: a remote server with the aggregator's failure model, not
 * a way to a board (a board another process holds is reached by the board-share protocol,
 * device/share/; a bench names such a board as a `jumperless` child). The CLI hands in how to open
 * a connection (`FrameClient.connect`). One connection holds the catalog and tells when the server
 * goes; calls take a connection of their own from a small pool, because a connection runs one
 * request at a time, and a cancel hangs that connection up (the server then stops the call).
 * Results come back as the structured object the server's MCP side renders, and are rendered the
 * same way here; tool failures become ToolErrors, refusals RpcErrors.
 */
import { z } from 'zod';
import { CAPABILITIES, type Capability } from '../core/capabilities.js';
import { RpcError, ToolError, unavailable } from '../core/errors.js';
import { isRecord } from '../core/json.js';
import type { ToolResult } from '../core/render.js';
import { renderResult } from '../core/render.js';
import type { Subsystem, SubsystemEvent, SubsystemHealth } from '../core/subsystem.js';
import type { CallContext, ToolDescriptor } from '../core/toolDefinition.js';
import { checkSubsystemName } from './wireNames.js';

/** One framed connection (src/device/frameClient.ts `FrameClient` is one). */
export interface FrameChannel {
  /** Sends a request and resolves with the next response; rejects once the connection is gone. */
  request(message: unknown): Promise<unknown>;
  closed(): Promise<void>;
  close(): void;
}

export interface SocketChildOptions {
  name: string;
  ring?: string;
  path: string;
  open(path: string): Promise<FrameChannel>;
  /** For tools whose server names no known capability. Default by annotation: read or io. */
  capability?: Capability;
  /** The gateway's deadline for tools that name none. Default 60 s. */
  timeoutMs?: number;
  /** Idle call connections kept open. Default 4. */
  poolSize?: number;
}

const KNOWN = new Set<string>(CAPABILITIES);
const DEFAULT_TIMEOUT_MS = 60_000;
const CLIENT_ID = 'jumperless-mcp-federation';

const schemaObject = z.object({ type: z.literal('object') }).catchall(z.unknown());
const helloAck = z.object({ type: z.literal('hello_ack') });
const toolList = z.object({
  type: z.literal('tool_list'),
  tools: z.array(z.object({ id: z.string().min(1).max(256) }).catchall(z.unknown())).max(10_000),
});
const toolSchema = z.object({
  type: z.literal('tool_schema'),
  schema: z
    .object({
      id: z.string(),
      description: z.string().default(''),
      title: z.string().optional(),
      input_schema: schemaObject.catch({ type: 'object' }),
      output_schema: schemaObject.optional().catch(undefined),
      annotations: z.record(z.string(), z.unknown()).optional().catch(undefined),
      visibility: z.string().optional(),
      required_capabilities: z.array(z.string()).optional().catch(undefined),
      resources: z.object({ timeout_ms: z.number().positive().nullish() }).optional().catch(undefined),
    })
    .catchall(z.unknown()),
});
const toolResult = z.object({ type: z.literal('tool_result'), success: z.boolean(), result: z.unknown() });
const errorFrame = z.object({
  type: z.literal('error'),
  message: z.string(),
  code: z.number().optional(),
  retryable: z.boolean().optional(),
  details: z.unknown().optional(),
});
const failure = z
  .object({ code: z.string(), message: z.string(), retryable: z.boolean().default(false) })
  .catchall(z.unknown());

export class SocketChild implements Subsystem {
  readonly name: string;
  readonly ring: string | undefined;
  private main: FrameChannel | undefined;
  private idle: FrameChannel[] = [];
  private catalog: ToolDescriptor[] = [];
  private version: string | undefined;
  private readonly listeners = new Set<(event: SubsystemEvent) => void>();

  constructor(private readonly options: SocketChildOptions) {
    checkSubsystemName(options.name);
    if (options.ring !== undefined) checkSubsystemName(options.ring, 'ring id');
    this.name = options.name;
    this.ring = options.ring;
  }

  async connect(): Promise<void> {
    await this.disconnect();
    const main = await this.open().catch((error: unknown) => {
      throw new Error(
        `socket ${this.options.path}: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    try {
      const list = toolList.parse(await main.request({ type: 'tool_list' }));
      const catalog: ToolDescriptor[] = [];
      for (const { id } of list.tools) {
        const { schema } = toolSchema.parse(await main.request({ type: 'tool_schema', tool_id: id }));
        catalog.push(this.descriptor(schema));
      }
      this.catalog = catalog;
    } catch (error) {
      main.close();
      throw new Error(
        `socket ${this.options.path}: the server's catalog is not readable (${describe(error)})`,
      );
    }
    this.main = main;
    void main.closed().then(() => {
      if (this.main !== main) return;
      this.main = undefined;
      this.emit({ type: 'down', reason: 'the socket connection closed' });
    });
  }

  async disconnect(): Promise<void> {
    const channels = [this.main, ...this.idle.splice(0)];
    this.main = undefined;
    for (const channel of channels) channel?.close();
  }

  tools(): readonly ToolDescriptor[] {
    return this.catalog;
  }

  async invoke(tool: string, args: unknown, context: CallContext): Promise<ToolResult> {
    if (!this.main) throw unavailable(this.name, 'not connected');
    const channel =
      this.idle.pop() ??
      (await this.open().catch((error: unknown) => {
        throw unavailable(this.name, describe(error));
      }));
    // The server stops a call when its connection hangs up.
    const hangUp = () => channel.close();
    context.signal.addEventListener('abort', hangUp, { once: true });
    let reusable = false;
    try {
      const answer = await channel
        .request({ type: 'run_tool', tool_id: tool, args })
        .catch((error: unknown) => {
          if (context.signal.aborted) throw context.signal.reason;
          throw unavailable(this.name, describe(error));
        });
      reusable = true;
      return this.outcome(answer);
    } finally {
      context.signal.removeEventListener('abort', hangUp);
      if (reusable && this.main && this.idle.length < (this.options.poolSize ?? 4)) this.idle.push(channel);
      else channel.close();
    }
  }

  health(): SubsystemHealth {
    return {
      name: this.name,
      status: this.main ? 'ok' : 'down',
      ...(this.main ? {} : { detail: 'not connected' }),
      ...(this.ring ? { ring: this.ring } : {}),
      target: `socket ${this.options.path}`,
      ...(this.version ? { server: this.version } : {}),
      tools: this.catalog.length,
    };
  }

  watch(listener: (event: SubsystemEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A connection that said hello, asking for every capability (the gateway gates; the server intersects with its own allow-list). */
  private async open(): Promise<FrameChannel> {
    const channel = await this.options.open(this.options.path);
    try {
      const ack = helloAck.extend({ server_version: z.string().optional() }).parse(
        await channel.request({
          type: 'hello',
          client_id: CLIENT_ID,
          requested_capabilities: [...CAPABILITIES],
        }),
      );
      this.version = ack.server_version;
      return channel;
    } catch (error) {
      channel.close();
      throw new Error(`no hello_ack (${describe(error)})`);
    }
  }

  private outcome(answer: unknown): ToolResult {
    const result = toolResult.safeParse(answer);
    if (result.success) {
      const value = result.data.result;
      if (result.data.success) return renderResult(isRecord(value) ? value : { value });
      const failed = failure.safeParse(value);
      if (!failed.success)
        throw new ToolError(
          'tool_error',
          `${this.name}: the tool failed: ${JSON.stringify(value)?.slice(0, 500)}`,
        );
      const { code, message, retryable, ...details } = failed.data;
      throw new ToolError(code, message, { retryable, details });
    }
    const error = errorFrame.safeParse(answer);
    if (!error.success) throw new RpcError(-32603, `${this.name} answered with an unexpected frame`);
    const { message, code, retryable, details } = error.data;
    const data = isRecord(details) ? details : details === undefined ? {} : { details };
    // Dispatch codes (1001 denied, 1002 rate limited, ...) ride on -32603; without one it was the name or the arguments.
    if (code !== undefined)
      throw new RpcError(-32603, message, { code, retryable: retryable === true, ...data });
    throw new RpcError(-32602, message, Object.keys(data).length > 0 ? data : undefined);
  }

  private descriptor(schema: z.output<typeof toolSchema>['schema']): ToolDescriptor {
    const annotations = schema.annotations ?? {};
    const required = schema.required_capabilities?.[0];
    const readOnly = annotations.readOnlyHint === true;
    // A little past the server's own deadline, so its answer (with its message) comes first.
    const own = schema.resources?.timeout_ms;
    const timeoutMs = own ? own + 2000 : (this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    return {
      name: schema.id,
      ...(schema.title === undefined ? {} : { title: schema.title }),
      description: schema.description,
      inputSchema: schema.input_schema,
      ...(schema.output_schema ? { outputSchema: schema.output_schema } : {}),
      annotations,
      hidden: schema.visibility === 'hidden',
      capability:
        required !== undefined && KNOWN.has(required)
          ? (required as Capability)
          : (this.options.capability ?? (readOnly ? 'jumperless.read' : 'jumperless.io')),
      timeoutMs,
    };
  }

  private emit(event: SubsystemEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

function describe(error: unknown): string {
  if (error instanceof z.ZodError)
    return error.issues
      .map((i) => `${i.path.join('.') || 'frame'}: ${i.message}`)
      .join('; ')
      .slice(0, 300);
  return error instanceof Error ? error.message : String(error);
}
