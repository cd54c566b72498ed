/**
 * Tools in this process as a subsystem: the one adapter from a tool to what the registry holds. Each
 * tool becomes a descriptor with its JSON Schemas (from the build, jsonSchemas.ts, or from zod once
 * per tool) and an argument check; a call runs the handler with what the tools act on now (the open
 * board, held for the call when the tool acts on it; the limits), checks the result against the
 * output schema and renders it.
 *
 * A board's catalog is bound to the board by how to open it: its tools are listed before the board
 * opens, and the board opens at the first call or read that needs it, never before (issue 22: a
 * client may start a copy of a stdio server only to learn its protocol version, and that copy must
 * not open, lock or take over the board); calls made while it opens wait for it. The session
 * reconnects a lost link by itself, so the board never reports `down`; while it is away its calls
 * fail with the device's `disconnected` error, health says so, and what happened to the link is told
 * as log events. A catalog without a board (the server's own tools, fixtures) runs device tools as
 * `not_found`.
 */
import { z } from 'zod';
import { missingFunctionsReason } from '../board/firmware.js';
import { type Board, type BoardClient, holderOf } from '../device/board.js';
import { DeviceError } from '../device/errors.js';
import type { SessionHealth } from '../device/health.js';
import { checkSubsystemName } from '../federation/wireNames.js';
import { noteResult, notesOf } from '../tools/boardNotes.js';
import { readPrecomputedSchemas, schemasOf } from '../tools/jsonSchemas.js';
import { type SafetyPolicy, safetyPolicy } from '../tools/safety.js';
import type { AnyDeviceTool, BoardUse, ToolEnv } from '../tools/tool.js';
import { JSONRPC, RpcError, ToolError, unavailable } from './errors.js';
import { type ContentBlock, renderResult, type ToolResult } from './render.js';
import type { LogLevel, Prompt, Resource, ResourceTemplate } from './resources.js';
import type { HealthStatus, Subsystem, SubsystemEvent, SubsystemHealth } from './subsystem.js';
import {
  type AnyTool,
  annotationsFor,
  type CallContext,
  type HandlerContext,
  type ToolDefinition,
  type ToolDescriptor,
} from './toolDefinition.js';

/** A board once opened: the board tools use, and what the subsystem needs to run it. */
export interface OpenedBoard {
  /** Its jobs connect the link when they first run, and fail with the device's error when they cannot. */
  board: Board;
  /** The session's health while this process holds the port; undefined while it works through another. */
  health(): SessionHealth | undefined;
  /** What happened to the link, as lines for the people at the clients. */
  onLog(listener: (level: LogLevel, text: string) => void): () => void;
  close(): Promise<void>;
}

/** Where a catalog's board comes from. */
export interface BoardSource {
  /** What the board is, for health: `sim`, `/dev/ttyACM0`, `tcp://...`. */
  device: string;
  /** Opens the board (a serial port, a TCP link, a fresh virtual board, the process holding it). */
  open(): Promise<OpenedBoard>;
}

export interface ToolSubsystemOptions {
  /** kebab-case, as every subsystem. */
  name: string;
  ring?: string;
  tools: readonly AnyTool[];
  /** Voltage limits in force; default the board's envelope. */
  safety?: SafetyPolicy;
  /** The outside lease name the board is bound to (tools/tool.ts `ToolEnv.leaseName`). */
  leaseName?: string;
  /** The board the device tools act on: one at hand (tests, fixtures), or where to open it. */
  board?: Board | BoardSource;
  /** Resources, given the way to the board (opened when a read needs it). */
  resources?: (board: () => Promise<Board>) => readonly Resource[];
  templates?: readonly ResourceTemplate[];
  prompts?: readonly Prompt[];
}

const STATUS: Record<SessionHealth['state'], HealthStatus> = {
  ready: 'ok',
  idle: 'degraded',
  connecting: 'degraded',
  reconnecting: 'degraded',
  closed: 'down',
};

export class ToolSubsystem implements Subsystem {
  readonly name: string;
  readonly ring: string | undefined;
  private readonly byName = new Map<string, AnyTool>();
  private readonly descriptors: readonly ToolDescriptor[];
  private readonly safety: SafetyPolicy;
  private readonly source: BoardSource | undefined;
  private readonly atHand: Board | undefined;
  private readonly ownResources: readonly Resource[];
  private readonly listeners = new Set<(event: SubsystemEvent) => void>();
  private opening: Promise<OpenedBoard> | undefined;
  private opened: OpenedBoard | undefined;
  private stopLogs: (() => void) | undefined;
  /** Between connect and disconnect: a call may open the board (again, after a failed open). */
  private started = false;
  /** Why the last open failed, until one succeeds. */
  private openError: string | undefined;
  /** Bumped by disconnect, so an open that finishes after it is closed at once. */
  private epoch = 0;

  constructor(private readonly options: ToolSubsystemOptions) {
    checkSubsystemName(options.name);
    if (options.ring !== undefined) checkSubsystemName(options.ring, 'ring id');
    this.name = options.name;
    this.ring = options.ring;
    for (const tool of options.tools) {
      const existing = this.byName.get(tool.name);
      if (existing) {
        throw new Error(`two tools are named "${tool.name}" (groups ${existing.group} and ${tool.group})`);
      }
      this.byName.set(tool.name, tool);
    }
    this.descriptors = [...this.byName.values()].map(descriptorOf);
    this.safety = options.safety ?? safetyPolicy();
    const board = options.board;
    this.atHand = board && !('open' in board) ? board : undefined;
    this.source = board && 'open' in board ? board : undefined;
    this.ownResources = options.resources?.(() => this.board()) ?? [];
  }

  /** Nothing is opened here: the board opens when a call first needs it. */
  async connect(): Promise<void> {
    this.started = true;
  }

  async disconnect(): Promise<void> {
    this.epoch++;
    this.started = false;
    const opened = this.opened;
    this.opening = undefined;
    this.opened = undefined;
    this.stopLogs?.();
    this.stopLogs = undefined;
    await opened?.close().catch(() => {});
  }

  tools(): readonly ToolDescriptor[] {
    return this.descriptors;
  }

  resources(): readonly Resource[] {
    return this.ownResources;
  }

  templates(): readonly ResourceTemplate[] {
    return this.options.templates ?? [];
  }

  prompts(): readonly Prompt[] {
    return this.options.prompts ?? [];
  }

  async invoke(name: string, args: unknown, context: CallContext): Promise<ToolResult> {
    const tool = this.byName.get(name);
    if (!tool) throw new RpcError(JSONRPC.invalidParams, `Unknown tool: ${name}`);
    // The board is open before the tool starts, so what it keeps per board goes under its real id.
    const board = this.source ? await this.board() : this.atHand;
    const leaseName = this.options.leaseName;
    return handleCall(tool, args, context, {
      ...(board ? { board } : {}),
      safety: this.safety,
      ...(leaseName !== undefined ? { leaseName } : {}),
    });
  }

  health(): SubsystemHealth {
    const source = this.source;
    if (!source) return { name: this.name, status: 'ok' };
    const base = { name: this.name, device: source.device, ...(this.ring ? { ring: this.ring } : {}) };
    if (!this.started) return { ...base, status: 'down', detail: 'not started' };
    if (!this.opened) {
      if (this.openError)
        return { ...base, status: 'down', detail: `cannot open the board: ${this.openError}` };
      return { ...base, status: 'ok', opens: this.opening ? 'now' : 'at the first call' };
    }
    const session = this.opened.health();
    // Worked through the process that holds the port: that process's health resource tells more.
    if (!session) return { ...base, status: 'ok', sharing: 'client' };
    const status = STATUS[session.state];
    return {
      ...base,
      status,
      ...(status === 'ok'
        ? {}
        : { detail: session.lastError?.message ?? `the board link is ${session.state}` }),
      session,
    };
  }

  watch(listener: (event: SubsystemEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The open board; a call made while it opens waits for it, and opens it when it is not (yet) open.
   * Public for a one-shot command's own tool, which runs on this board beside the catalog's.
   */
  board(): Promise<Board> {
    if (this.atHand) return Promise.resolve(this.atHand);
    if (this.opened) return Promise.resolve(this.opened.board);
    if (!this.started) return Promise.reject(unavailable(this.name, 'the board is not open'));
    return this.open().then(
      (opened) => opened.board,
      (error: unknown) =>
        Promise.reject(
          unavailable(
            this.name,
            `the board could not be opened: ${error instanceof Error ? error.message : String(error)}`,
          ),
        ),
    );
  }

  /** Opens the board once; a disconnect meanwhile closes what the open brings and forgets it. */
  private open(): Promise<OpenedBoard> {
    const source = this.source;
    if (!source) return Promise.reject(new Error(`${this.name} has no board to open`));
    if (!this.opening) {
      const epoch = this.epoch;
      const opening = source.open().then(async (opened) => {
        if (epoch !== this.epoch) {
          await opened.close().catch(() => {});
          throw new Error('the board was closed while it opened');
        }
        this.openError = undefined;
        this.opened = opened;
        this.stopLogs = opened.onLog((level, text) => {
          for (const listener of this.listeners) listener({ type: 'log', level, text });
        });
        return opened;
      });
      this.opening = opening;
      opening.catch((error: unknown) => {
        if (this.opening !== opening) return;
        this.opening = undefined;
        this.openError = error instanceof Error ? error.message : String(error);
      });
    }
    return this.opening;
  }
}

const precomputed = readPrecomputedSchemas();
const definitions = new WeakMap<AnyTool, ToolDefinition>();

/** A tool as `tools/list` shows it: name, title, description, JSON Schemas, annotations from its kind. */
export function describeTool(tool: AnyTool): ToolDefinition {
  let definition = definitions.get(tool);
  if (!definition) {
    const schemas = schemasOf(tool, precomputed);
    definition = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: schemas.input,
      outputSchema: schemas.output,
      annotations: annotationsFor(tool),
      ...(tool.app ? { _meta: { ui: { resourceUri: tool.app } } } : {}),
    };
    definitions.set(tool, definition);
  }
  return definition;
}

function descriptorOf(tool: AnyTool): ToolDescriptor {
  const definition = describeTool(tool);
  return {
    name: tool.name,
    title: definition.title,
    description: definition.description,
    inputSchema: definition.inputSchema,
    ...(definition.outputSchema ? { outputSchema: definition.outputSchema } : {}),
    annotations: definition.annotations,
    ...(definition._meta ? { _meta: definition._meta } : {}),
    hidden: tool.hidden === true,
    group: tool.group,
    capability: tool.capability,
    ...(tool.timeoutMs === undefined ? {} : { timeoutMs: tool.timeoutMs }),
    ...(tool.maxConcurrent === undefined ? {} : { maxConcurrent: tool.maxConcurrent }),
    parse: (args) => parseArguments(tool, args),
    ...(tool.hazard ? { hazard: (args, limits) => tool.hazard?.(args, limits) } : {}),
  };
}

/** Checks arguments against the tool's schema: the parsed value, or -32602 with every issue. */
export function parseArguments(tool: AnyTool, args: unknown): unknown {
  const parsed: z.ZodSafeParseResult<unknown> = tool.input.safeParse(args ?? {});
  if (parsed.success) return withoutNegativeZero(parsed.data);
  throw new RpcError(
    JSONRPC.invalidParams,
    `Invalid arguments for tool ${tool.name}:\n${z.prettifyError(parsed.error)}`,
    {
      tool: tool.name,
      issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
    },
  );
}

/**
 * JSON may carry `-0`, which Python reads as the float `-0.0`: an integer argument of `-0` would make
 * the board raise TypeError. No quantity here has a signed zero, so every `-0` becomes `0`.
 */
function withoutNegativeZero(value: unknown): unknown {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(withoutNegativeZero);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutNegativeZero(item)]));
  }
  return value;
}

/** Runs a tool on arguments that passed its `parse`; a failure is thrown, not rendered (runTool renders it). */
async function handleCall(
  tool: AnyTool,
  args: unknown,
  context: CallContext,
  env: ToolEnv,
): Promise<ToolResult> {
  const extra: ContentBlock[] = [];
  const handlerContext = { ...context, attach: (block: ContentBlock) => extra.push(block) };
  const board = (tool as Partial<AnyDeviceTool>).board;
  const data = board
    ? await handleOnBoard(tool as AnyDeviceTool, board, args, handlerContext, env)
    : await tool.handle(args, handlerContext, env);
  const output = tool.output.safeParse(data);
  if (!output.success) {
    throw new Error(`result does not match its output schema: ${z.prettifyError(output.error)}`);
  }
  return renderResult(output.data as Record<string, unknown>, extra);
}

/**
 * A device tool's call (tools/tool.ts): the board held for it (`hold` in device/board.ts: an atomic
 * call's first job takes a lease kept to its end, the call's signal goes to every job), firmware
 * that lacks a function it needs refused, then its handler with the held board and the limits.
 */
async function handleOnBoard(
  tool: AnyDeviceTool,
  use: BoardUse,
  args: unknown,
  context: HandlerContext,
  env: ToolEnv,
): Promise<unknown> {
  if (!env.board) throw new DeviceError('not_found', 'this server was started without a board');
  // A caller's outside lease counts on the board bound to its name only.
  const presented = context.outsideLease;
  const outside = env.leaseName !== undefined && presented?.name === env.leaseName ? presented : undefined;
  const call = { owner: context.caller, ...(outside ? { outside } : {}) };
  const held = env.board.hold({ signal: context.signal, ...call, ...use });
  try {
    await checkFirmware(tool.name, tool.requiresFor ? tool.requiresFor(args) : tool.requires, held.board);
    const result = await tool.handle(args, {
      ...context,
      board: held.board,
      safety: env.safety,
      leaseHolder: holderOf(call),
      notes: notesOf(env.board),
      attachImage: (image) => context.attach({ type: 'image', data: image.data, mimeType: image.mimeType }),
    });
    // A reading or the OLED's text goes where the board's pictures show it (tools/boardNotes.ts).
    noteResult(env.board, tool.name, args, result);
    return result;
  } catch (error) {
    throw use.mutates ? error : harmlessRerun(error);
  } finally {
    held.release();
  }
}

/**
 * A call that only reads and was cut off after its code went out (`mayHaveRun`): running it again
 * changes nothing, so it is plainly retryable.
 */
function harmlessRerun(error: unknown): unknown {
  if (!(error instanceof DeviceError) || error.details.mayHaveRun !== true) return error;
  const { mayHaveRun: _ran, ...details } = error.details;
  return new DeviceError(
    error.code,
    `${error.message.replace(/\. Read back what it changes before sending it again$/, '')}; the call only reads the board, so retrying it is safe`,
    details,
  );
}

async function checkFirmware(tool: string, requires: readonly string[] | undefined, board: BoardClient) {
  if (!requires || requires.length === 0) return;
  const available = await board.firmwareFunctions();
  const missing = requires.filter((name) => !available.has(name));
  if (missing.length > 0) {
    throw new ToolError(
      'unsupported_firmware',
      `This board's firmware has no ${missing.join(', ')}, which ${tool} needs. ${missingFunctionsReason(missing)}`,
      { details: { missing } },
    );
  }
}
