/**
 * What every transport shares: the registry, the board, the safety limits, the audit sink and the
 * board-change listeners. One per process; transports hold it and call `runTool` with it.
 */
import { DeviceError } from '../device/errors.js';
import type { BoardClient } from '../tools/boardClient.js';
import { type SafetyPolicy, safetyPolicy } from '../tools/safety.js';
import type { AnyTool } from '../tools/tool.js';
import type { AuditSink } from './audit.js';
import { createRegistry, type Registry } from './registry.js';

export interface DispatcherOptions {
  /** The catalog; or give a ready `registry` (a federation's) instead. */
  tools?: readonly AnyTool[];
  registry?: Registry;
  /** The board; without one, board calls fail with `not_found`. */
  board?: BoardClient;
  /** Voltage limits; default the board envelope (-8..+8 V). */
  safety?: SafetyPolicy;
  audit?: AuditSink;
  /** Deadline of a tool that names none. Default 10 000 ms. */
  defaultTimeoutMs?: number;
}

export interface Dispatcher {
  readonly registry: Registry;
  readonly board: BoardClient;
  readonly safety: SafetyPolicy;
  readonly audit: AuditSink | undefined;
  readonly defaultTimeoutMs: number;
  /** Called with the tool's name after a tool that may change the board succeeded. */
  onBoardChange(listener: (tool: string) => void): () => void;
  boardChanged(tool: string): void;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const listeners = new Set<(tool: string) => void>();
  return {
    registry: options.registry ?? createRegistry(options.tools ?? []),
    board: options.board ?? noBoard,
    safety: options.safety ?? safetyPolicy(),
    audit: options.audit,
    defaultTimeoutMs: options.defaultTimeoutMs ?? 10_000,
    onBoardChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    boardChanged(tool) {
      for (const listener of listeners) listener(tool);
    },
  };
}

const missing = () => Promise.reject(new DeviceError('not_found', 'this server was started without a board'));

/** Stands in when the server runs without a board (tests, fixtures only). */
const noBoard: BoardClient = {
  call: missing,
  script: missing,
  exec: missing,
  firmwareFunctions: missing,
  lease: missing,
  seen: new Map(),
  id: 'none',
  health: missing,
};
