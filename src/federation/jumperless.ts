/**
 * A Jumperless board in this process as a subsystem: its own device session (so its own job
 * queue) and the tool catalog. What runs a tool and how the catalog is described belong to the
 * dispatch core, which sits above federation (DESIGN.md §2), so the CLI hands them in as a
 * BoardRuntime: a single-board dispatcher over the board, the very core the single-board server
 * uses. The session reconnects a lost link by itself, so the board never reports `down`; while
 * it is away its calls fail with the device's `disconnected` error and health says so.
 */
import type { SessionHealth } from '../device/health.js';
import { unavailable } from './errors.js';
import type {
  HealthStatus,
  InvokeContext,
  Subsystem,
  SubsystemEvent,
  SubsystemHealth,
  SubsystemResult,
  ToolDescriptor,
} from './subsystem.js';
import { checkSubsystemName } from './wireNames.js';

export interface BoardRuntime {
  /** The catalog as the single-board server describes it, hidden tools included. */
  readonly tools: readonly ToolDescriptor[];
  /** Runs one catalog tool on this board and renders it. */
  run(tool: string, args: unknown, context: InvokeContext): Promise<SubsystemResult>;
  /** Reaches a clean raw-REPL prompt; rejects when no board answers. */
  connect(): Promise<void>;
  health(): SessionHealth;
  close(): Promise<void>;
}

export interface JumperlessOptions {
  name: string;
  ring?: string;
  /** What the board is, for health: `sim`, `/dev/ttyACM0`, `tcp://...`. */
  device: string;
  /** Opens the board (a serial port, a TCP link, a fresh virtual board). */
  open(): Promise<BoardRuntime>;
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
  private runtime: Promise<BoardRuntime> | undefined;
  private opened: BoardRuntime | undefined;

  constructor(private readonly options: JumperlessOptions) {
    checkSubsystemName(options.name);
    if (options.ring !== undefined) checkSubsystemName(options.ring, 'ring id');
    this.name = options.name;
    this.ring = options.ring;
  }

  async connect(): Promise<void> {
    this.runtime ??= this.options.open().then((runtime) => {
      this.opened = runtime;
      return runtime;
    });
    const runtime = await this.runtime.catch((error: unknown) => {
      this.runtime = undefined;
      throw error;
    });
    await runtime.connect();
  }

  async disconnect(): Promise<void> {
    const runtime = this.runtime;
    this.runtime = undefined;
    this.opened = undefined;
    await runtime?.then((r) => r.close()).catch(() => {});
  }

  tools(): readonly ToolDescriptor[] {
    return this.opened?.tools ?? [];
  }

  invoke(tool: string, args: unknown, context: InvokeContext): Promise<SubsystemResult> {
    if (!this.opened) return Promise.reject(unavailable(this.name, 'the board is not open'));
    return this.opened.run(tool, args, context);
  }

  health(): SubsystemHealth {
    const base = { name: this.name, device: this.options.device, ...(this.ring ? { ring: this.ring } : {}) };
    if (!this.opened) return { ...base, status: 'down', detail: 'the board is not open' };
    const session = this.opened.health();
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

  watch(_listener: (event: SubsystemEvent) => void): () => void {
    return () => {};
  }
}
