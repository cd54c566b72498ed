/**
 * Another MCP server as a subsystem, through the SDK Client: started as a command (stdio) or
 * reached at a URL (Streamable HTTP, optional bearer). Its tools keep their own names under the
 * child's prefix; calls go straight to `tools/call` (no client-side output check: the end client
 * makes its own), with the caller's signal (a cancel reaches the child as
 * `notifications/cancelled`) and progress passed through. A closed connection is reported as
 * `down`, so the aggregator marks the tools unavailable and reconnects; the child's own
 * `notifications/tools/list_changed` becomes a catalog change.
 */

import type { Tool, Transport } from '@modelcontextprotocol/client';
import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';
import { CAPABILITIES, type Capability } from '../core/capabilities.js';
import { isModernProtocol } from '../core/era.js';
import { RpcError, ToolError, unavailable } from '../core/errors.js';
import { isRecord } from '../core/json.js';
import type { ContentBlock, ToolResult } from '../core/render.js';
import type { Subsystem, SubsystemEvent, SubsystemHealth } from '../core/subsystem.js';
import type { CallContext, ToolDescriptor } from '../core/toolDefinition.js';
import { HIDDEN_TOOLS_META, TOOL_CAPABILITY_META } from '../core/toolDefinition.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../core/version.js';
import { fetchPerRequestSignal } from './httpFetch.js';
import { checkSubsystemName } from './wireNames.js';

/** Operator-only capabilities outrank the rest; between others the operator's choice stands. */
function stricter(child: Capability, operator: Capability | undefined): Capability {
  if (operator === undefined) return child;
  const rank = (capability: Capability) =>
    capability === 'jumperless.admin' ? 2 : capability === 'jumperless.exec' ? 1 : 0;
  return rank(child) > rank(operator) ? child : operator;
}

/** The exec or admin capability a jumperless-mcp child declares for a listed tool, if any. */
function declaredCapability(value: unknown): Capability | undefined {
  return value === 'jumperless.exec' || value === 'jumperless.admin' ? value : undefined;
}

const hiddenToolsSchema = z
  .array(
    z.looseObject({
      name: z.string().min(1).max(128),
      description: z.string().max(10_000).optional(),
      inputSchema: z.looseObject({ type: z.literal('object') }),
      capability: z.enum(CAPABILITIES),
    }),
  )
  .max(1000);

export interface McpChildOptions {
  name: string;
  ring?: string;
  /** Where it is, for health and logs: the command line or the URL. */
  target: string;
  /** A fresh transport for each connection. */
  transport(): Transport;
  /**
   * What a caller needs for this child's tools at the gateway. Default: `jumperless.read` for
   * tools the child marks read-only, `jumperless.io` for the rest.
   */
  capability?: Capability;
  /** The gateway's deadline per call. Default 60 s (the child keeps its own, shorter ones). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const CLIENT_INFO = { name: `${PACKAGE_NAME}-federation`, version: PACKAGE_VERSION };
// We say we can elicit: a child's question (ask_user) is put to the person at our client.
const CLIENT_CAPABILITIES = { elicitation: {} };

export class McpChild implements Subsystem {
  readonly name: string;
  readonly ring: string | undefined;
  private client: Client | undefined;
  private pending: Client | undefined;
  private catalog: ToolDescriptor[] = [];
  private server: { name: string; version: string } | undefined;
  private readonly listeners = new Set<(event: SubsystemEvent) => void>();
  /** Calls in flight: a question the child asks goes to the client of the only one that has one. */
  private readonly calls: CallContext[] = [];

  constructor(private readonly options: McpChildOptions) {
    checkSubsystemName(options.name);
    if (options.ring !== undefined) checkSubsystemName(options.ring, 'ring id');
    this.name = options.name;
    this.ring = options.ring;
  }

  async connect(): Promise<void> {
    await this.disconnect();
    const transport = this.options.transport();
    // Over HTTP we ask for 2026-07-28 first (stateless calls, plain JSON replies on kept-alive
    // connections) and fall back to a 2025 session for servers that do not offer it.
    const client = new Client(CLIENT_INFO, {
      capabilities: CLIENT_CAPABILITIES,
      ...(transport instanceof StreamableHTTPClientTransport ? { versionNegotiation: { mode: 'auto' } } : {}),
    });
    this.pending = client;
    client.setRequestHandler('elicitation/create', async (request) => {
      // A child does not say which of our calls asks: put the question only when one call could
      // have, so nobody answers for another caller's call (the child then waits for its board).
      const askers = this.calls.filter((call) => call.client !== undefined);
      const asker = askers.length === 1 ? askers[0] : undefined;
      if (!asker?.client) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          askers.length === 0
            ? 'no client is waiting on this child to answer'
            : 'several calls wait on this child; its question cannot be put to one person',
        );
      }
      // Our call may end while the person has not answered (a 2026-07-28 client answers our
      // call's input_required in a later request): then the child's question ends with it, or the
      // child call would wait on it for ever.
      return (await untilAborted(
        asker.client.elicit(request.params as Record<string, unknown>),
        asker.signal,
      )) as never;
    });
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.emit({ type: 'down', reason: 'the connection closed' });
    };
    client.setNotificationHandler('notifications/tools/list_changed', async () => {
      if (this.client !== client) return;
      try {
        this.catalog = await this.list(client);
        this.emit({ type: 'tools_changed' });
      } catch (error) {
        this.lost(client, error);
      }
    });
    try {
      await client.connect(transport);
      // 2026-07-28 sends list changes only on a subscriptions/listen stream.
      if (isModernProtocol(client.getNegotiatedProtocolVersion())) {
        await client.listen({ toolsListChanged: true });
      }
      const catalog = await this.list(client);
      if (this.pending !== client) throw new Error('disconnected while connecting');
      this.catalog = catalog;
      this.server = client.getServerVersion();
      this.client = client;
    } catch (error) {
      await client.close().catch(() => {});
      throw new Error(`${this.options.target}: ${messageOf(error)}`);
    } finally {
      if (this.pending === client) this.pending = undefined;
    }
  }

  async disconnect(): Promise<void> {
    const clients = [this.client, this.pending];
    this.client = undefined;
    this.pending = undefined;
    await Promise.all(clients.map((client) => client?.close().catch(() => {})));
  }

  tools(): readonly ToolDescriptor[] {
    return this.catalog;
  }

  async invoke(tool: string, args: unknown, context: CallContext): Promise<ToolResult> {
    const client = this.client;
    if (!client) throw unavailable(this.name, 'not connected');
    const timeoutMs = this.catalog.find((t) => t.name === tool)?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.calls.push(context);
    try {
      return await this.sdkCall(client, tool, args, context, timeoutMs);
    } finally {
      this.calls.splice(this.calls.indexOf(context), 1);
    }
  }

  private async sdkCall(
    client: Client,
    tool: string,
    args: unknown,
    context: CallContext,
    timeoutMs: number,
  ): Promise<ToolResult> {
    try {
      const result = await client.request(
        { method: 'tools/call', params: { name: tool, arguments: args as Record<string, unknown> } },
        {
          signal: context.signal,
          // The gateway's deadline comes first; this only keeps the SDK from a timeout of its own.
          timeout: timeoutMs + 5000,
          onprogress: ({ progress, total, message }) => context.progress(progress, total, message),
        },
      );
      return {
        content: result.content as ContentBlock[],
        ...(result.structuredContent
          ? { structuredContent: result.structuredContent as Record<string, unknown> }
          : {}),
        ...(result.isError ? { isError: true as const } : {}),
      };
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
        this.lost(client, error);
        throw unavailable(this.name, 'the connection closed during the call');
      }
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
        throw new ToolError('timeout', `${this.name} did not answer ${tool} in time: ${error.message}`, {
          retryable: true,
        });
      }
      if (error instanceof ProtocolError) {
        const message = error.message.replace(/^MCP error -?\d+: /, '');
        throw new RpcError(error.code, message, isRecord(error.data) ? error.data : undefined);
      }
      // Anything else is the transport failing (a refused connection, a lost HTTP session).
      this.lost(client, error);
      throw unavailable(this.name, messageOf(error));
    }
  }

  health(): SubsystemHealth {
    return {
      name: this.name,
      status: this.client ? 'ok' : 'down',
      ...(this.client ? {} : { detail: 'not connected' }),
      ...(this.ring ? { ring: this.ring } : {}),
      target: this.options.target,
      ...(this.server ? { server: `${this.server.name} ${this.server.version}` } : {}),
      tools: this.catalog.length,
    };
  }

  watch(listener: (event: SubsystemEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private lost(client: Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    void client.close().catch(() => {});
    this.emit({ type: 'down', reason: messageOf(error) });
  }

  private async list(client: Client): Promise<ToolDescriptor[]> {
    const tools: Tool[] = [];
    const hidden: ToolDescriptor[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...result.tools);
      hidden.push(...this.hiddenOf(result._meta?.[HIDDEN_TOOLS_META]));
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return [...tools.map((tool) => this.descriptor(tool)), ...hidden];
  }

  /**
   * Hidden tools a jumperless-mcp child offers this gateway in `_meta` (python_exec): callable by
   * name through the federation, with the capability the child names, never listed.
   */
  private hiddenOf(meta: unknown): ToolDescriptor[] {
    const parsed = hiddenToolsSchema.safeParse(meta);
    if (!parsed.success) return [];
    return parsed.data.map((tool) => ({
      ...this.descriptor(tool as Tool),
      hidden: true,
      // The operator's capability for this child may only raise the bar the child sets.
      capability: stricter(tool.capability, this.options.capability),
    }));
  }

  private descriptor(tool: Tool): ToolDescriptor {
    const title = tool.title ?? tool.annotations?.title;
    return {
      name: tool.name,
      ...(title === undefined ? {} : { title }),
      description: tool.description ?? '',
      inputSchema: tool.inputSchema as ToolDescriptor['inputSchema'],
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema as ToolDescriptor['inputSchema'] } : {}),
      annotations: tool.annotations ?? {},
      hidden: false,
      capability: stricter(
        declaredCapability(tool._meta?.[TOOL_CAPABILITY_META]) ??
          this.options.capability ??
          (tool.annotations?.readOnlyHint ? 'jumperless.read' : 'jumperless.io'),
        this.options.capability,
      ),
      timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    };
  }

  private emit(event: SubsystemEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

export interface StdioChildSpec {
  command: string;
  args?: readonly string[];
  /** Added to a small default environment (PATH, HOME, ...), as the SDK does. */
  env?: Record<string, string>;
  cwd?: string;
}

/** A transport factory that starts the command; its stderr lines are passed on with the child's name. */
export function stdioTransport(
  name: string,
  spec: StdioChildSpec,
  log: (line: string) => void,
): () => Transport {
  return () => {
    const transport = new StdioClientTransport({
      command: spec.command,
      args: [...(spec.args ?? [])],
      ...(spec.env ? { env: spec.env } : {}),
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
      stderr: 'pipe',
    });
    let partial = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') log(`[${name}] ${line.slice(0, 2000)}`);
    });
    return transport;
  };
}

/** A transport factory for a Streamable HTTP endpoint, with `Authorization: Bearer` when given. */
export function httpTransport(url: string, bearer?: string): () => Transport {
  return () =>
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} },
      fetch: fetchPerRequestSignal(),
    });
}

function messageOf(error: unknown): string {
  let text = error instanceof Error ? error.message : String(error);
  // The SDK's SdkHttpError keeps the HTTP status in `status`, not in its message; version
  // negotiation wraps it as the cause of its own error.
  const http = [error, error instanceof Error ? error.cause : undefined].find(
    (e) => e instanceof SdkHttpError,
  );
  const status = http instanceof SdkHttpError ? http.status : undefined;
  if (typeof status === 'number' && status >= 400 && status < 600) {
    text += ` (HTTP ${status}${status === 401 || status === 403 ? ': check the bearer token' : ''})`;
  }
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${text}${cause}`.slice(0, 500);
}

/** `work`, or its rejection with the signal's reason once the signal aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
