/**
 * The native socket's messages, exactly as ATD's wire has them (dispatch notes §2.1, DESIGN.md
 * §4 Protocol): tagged by `type`, snake_case fields, so ATD clients and conformance fixtures
 * work unchanged. Requests are checked here; unknown extra fields are ignored, as ATD's serde
 * does, and fields ATD clients may leave out get ATD's defaults.
 */
import { z } from 'zod';

export const SUPPORTED_TIERS = ['hot', 'warm', 'cold'] as const;
export type Tier = (typeof SUPPORTED_TIERS)[number];

const name = z.string().min(1).max(256);

const requestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ping') }),
  z.object({
    type: z.literal('hello'),
    client_id: name.nullish(),
    requested_capabilities: z.array(name).max(1000).default([]),
    /** Accepted for compatibility; this server grants nothing through UCAN. */
    ucan_tokens: z.array(z.string()).nullish(),
  }),
  z.object({ type: z.literal('tool_list') }),
  z.object({ type: z.literal('tool_schema'), tool_id: name }),
  z.object({
    type: z.literal('run_tool'),
    tool_id: name,
    args: z.unknown().default({}),
    dry_run: z.boolean().default(false),
  }),
  z.object({ type: z.literal('run_tool_continue'), tool_id: name, cursor: z.string() }),
]);

export type SocketRequest = z.output<typeof requestSchema>;
export const REQUEST_TYPES = [
  'ping',
  'hello',
  'tool_list',
  'tool_schema',
  'run_tool',
  'run_tool_continue',
] as const;

/** A tool as `tool_list` shows it (ATD ToolSummary, dispatch notes §2.2). */
export interface SocketToolSummary {
  id: string;
  name: string;
  description: string;
  input_schema: unknown;
  domain?: string;
  tags?: string[];
  visibility?: 'read' | 'write' | 'dangerous' | 'system' | 'hidden';
  tier?: Tier;
  [extra: string]: unknown;
}

export type SocketResponse =
  | { type: 'pong' }
  | { type: 'hello_ack'; granted_capabilities: string[]; server_version: string; supported_tiers: Tier[] }
  | { type: 'tool_list'; tools: readonly SocketToolSummary[] }
  | { type: 'tool_schema'; schema: unknown }
  | {
      type: 'tool_result';
      tool_id: string;
      result: unknown;
      success: boolean;
      dry_run: boolean;
      next_cursor?: string;
    }
  | SocketErrorFrame;

export interface SocketErrorFrame {
  type: 'error';
  message: string;
  /** Dispatch code (1001 capability denied, 1002 rate limited, 1003 broker failed, 1021 cursor invalid...). */
  code?: number;
  retryable?: boolean;
  details?: unknown;
}

export type ParsedRequest = { ok: true; request: SocketRequest } | { ok: false; message: string };

/** Checks one decoded frame; the message names the field at fault, never echoes big values. */
export function parseRequest(value: unknown): ParsedRequest {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'a frame must hold a JSON object with a "type" field' };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !(REQUEST_TYPES as readonly string[]).includes(type)) {
    const shown = typeof type === 'string' ? JSON.stringify(type.slice(0, 40)) : typeof type;
    return {
      ok: false,
      message: `unknown message type ${shown} (expected one of ${REQUEST_TYPES.join(', ')})`,
    };
  }
  const parsed = requestSchema.safeParse(value);
  if (parsed.success) return { ok: true, request: parsed.data };
  const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'frame'}: ${issue.message}`);
  return { ok: false, message: `bad ${type}: ${issues.join('; ')}` };
}
