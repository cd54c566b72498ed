/**
 * A Jumperless board in this process as a subsystem: the tool catalog bound to this board, its
 * resources and prompts, and its own device session (so its own job queue). The catalog is known
 * before the board is opened, so a server lists it at once; the board opens on `connect`, and a
 * call made meanwhile waits for it. The session reconnects a lost link by itself, so the board
 * never reports `down`; while it is away its calls fail with the device's `disconnected` error,
 * health says so, and what happened to the link is told as log events.
 */
import {
  JSONRPC,
  type LogLevel,
  type Prompt,
  type Resource,
  RpcError,
  type ToolDescriptor,
  type ToolResult,
} from '../contract/index.js';
import type { Board } from '../device/board.js';
import type { SessionHealth } from '../device/health.js';
import { type BoundCatalog, bindCatalog } from '../tools/local.js';
import { boardResourcesFor } from '../tools/resources.js';
import type { SafetyPolicy } from '../tools/safety.js';
import type { AnyTool } from '../tools/tool.js';
import { unavailable } from './errors.js';
import type { HealthStatus, InvokeContext, Subsystem, SubsystemEvent, SubsystemHealth } from './subsystem.js';
import { checkSubsystemName } from './wireNames.js';

/** A board once opened: the board tools use, and what the subsystem needs to run it. */
export interface OpenedBoard {
  board: Board;
  /** Reaches a clean raw-REPL prompt (or the process that holds the port); rejects when no board answers. */
  ready(): Promise<unknown>;
  /** The session's health while this process holds the port; undefined while it works through another. */
  health(): SessionHealth | undefined;
  /** What happened to the link, as lines for the people at the clients. */
  onLog(listener: (level: LogLevel, text: string) => void): () => void;
  close(): Promise<void>;
}

export interface JumperlessOptions {
  name: string;
  ring?: string;
  /** What the board is, for health: `sim`, `/dev/ttyACM0`, `tcp://...`. */
  device: string;
  /** The catalog bound to this board. */
  tools: readonly AnyTool[];
  safety: SafetyPolicy;
  prompts?: readonly Prompt[];
  /** Opens the board (a serial port, a TCP link, a fresh virtual board, the process holding it). */
  open(): Promise<OpenedBoard>;
  /**
   * Open at the first call instead of at connect: for virtual boards in a bench, each of which is a
   * MicroPython VM in a thread of its own (tens of MB), so fifty cost nothing until used.
   */
  openOnFirstUse?: boolean;
}

const STATUS: Record<SessionHealth['state'], HealthStatus> = {
  ready: 'ok',
  idle: 'degraded',
  connecting: 'degraded',
  reconnecting: 'degraded',
  closed: 'down',
};

export class JumperlessSubsystem implements Subsystem {
  readonly name: string;
  readonly ring: string | undefined;
  private opening: Promise<OpenedBoard> | undefined;
  private opened: OpenedBoard | undefined;
  private stopLogs: (() => void) | undefined;
  /** Between connect and disconnect: a call may open the board (again, after a failed open). */
  private started = false;
  /** Bumped by disconnect, so an open that finishes after it is closed at once. */
  private epoch = 0;
  private readonly catalog: BoundCatalog;
  private readonly boardResources: readonly Resource[];
  private readonly listeners = new Set<(event: SubsystemEvent) => void>();

  constructor(private readonly options: JumperlessOptions) {
    checkSubsystemName(options.name);
    if (options.ring !== undefined) checkSubsystemName(options.ring, 'ring id');
    this.name = options.name;
    this.ring = options.ring;
    this.catalog = bindCatalog(options.tools);
    this.boardResources = boardResourcesFor(() => this.board());
  }

  async connect(): Promise<void> {
    this.started = true;
    if (this.options.openOnFirstUse) return;
    const opened = await this.open();
    await opened.ready();
  }

  /** Opens the board once; a disconnect meanwhile closes what the open brings and forgets it. */
  private open(): Promise<OpenedBoard> {
    if (!this.opening) {
      const epoch = this.epoch;
      const opening = this.options.open().then(async (opened) => {
        if (epoch !== this.epoch) {
          await opened.close().catch(() => {});
          throw new Error('the board was closed while it opened');
        }
        this.opened = opened;
        this.stopLogs = opened.onLog((level, text) => {
          for (const listener of this.listeners) listener({ type: 'log', level, text });
        });
        return opened;
      });
      this.opening = opening;
      opening.catch(() => {
        if (this.opening === opening) this.opening = undefined;
      });
    }
    return this.opening;
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
    return this.catalog.descriptors;
  }

  resources(): readonly Resource[] {
    return this.boardResources;
  }

  prompts(): readonly Prompt[] {
    return this.options.prompts ?? [];
  }

  async invoke(tool: string, args: unknown, context: InvokeContext): Promise<ToolResult> {
    const local = this.catalog.get(tool);
    if (!local) throw new RpcError(JSONRPC.invalidParams, `Unknown tool: ${tool}`);
    // The board is open before the tool starts, so what it keeps per board goes under its real id.
    const board = await this.board();
    return local.run(args, context, { board, safety: this.options.safety });
  }

  health(): SubsystemHealth {
    const base = { name: this.name, device: this.options.device, ...(this.ring ? { ring: this.ring } : {}) };
    if (!this.opened && this.started && this.options.openOnFirstUse && !this.opening) {
      return { ...base, status: 'ok', opens: 'at the first call' };
    }
    if (!this.opened) return { ...base, status: 'down', detail: 'the board is not open' };
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

  /** The open board; a call made while it opens waits for it, and opens it when it is not (yet) open. */
  private board(): Promise<Board> {
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
}
