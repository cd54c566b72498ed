/** One audit event per tool call, on every branch (dispatch notes §2.3), as JSON lines. */
import { createWriteStream } from 'node:fs';

export type AuditOutcome =
  | 'ok'
  | 'tool_error'
  | 'unknown_tool'
  | 'invalid_args'
  | 'denied'
  | 'rate_limited'
  | 'timeout'
  | 'canceled'
  | 'declined'
  /** A hazard's question went to the board app; the call ended without running, for a retry. */
  | 'asked'
  | 'internal';

export interface AuditEvent {
  /** ISO time the call arrived. */
  time: string;
  callId: string;
  caller: string;
  tool: string;
  outcome: AuditOutcome;
  durationMs: number;
  /** The tool error code, when there is one. */
  code?: string;
}

export type AuditSink = (event: AuditEvent) => void;

/** Appends each event as one JSON line; write failures are reported once on stderr, never thrown. */
export function fileAuditSink(path: string): AuditSink & { close(): Promise<void> } {
  const stream = createWriteStream(path, { flags: 'a' });
  let warned = false;
  stream.on('error', (error) => {
    if (!warned) process.stderr.write(`jumperless-mcp: audit log ${path}: ${error.message}\n`);
    warned = true;
  });
  const sink = (event: AuditEvent) => {
    if (!stream.destroyed) stream.write(`${JSON.stringify(event)}\n`);
  };
  return Object.assign(sink, {
    close: () => new Promise<void>((resolve) => stream.end(resolve)),
  });
}
