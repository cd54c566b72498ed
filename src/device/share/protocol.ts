/**
 * The board-share protocol: how a jumperless-mcp that does not hold a board's port runs board
 * jobs through the process that does (one owner per board, across processes). Length-prefixed
 * JSON frames as on the native socket (device/frames.ts); one request at a time per
 * connection, answered in order. A connection that hangs up cancels its running job and ends its
 * lease: cancelling is closing. A connection holding a lease also sends `alive` every
 * `alive_ms` (the owner's welcome says how often; it gets no answer): a lease whose process falls
 * silent (stopped with Ctrl-Z, hung) is ended by the owner, so it cannot hold the board for
 * everyone; its next request is answered with why.
 */
import { z } from 'zod';

/**
 * Bumped when a message changes meaning; an owner refuses a client of another version. 2: the
 * firmware function list is an ordinary job (`functions` is gone). 3: a connection holding a lease
 * says `alive` (the welcome's `alive_ms`), or the owner ends its lease. 4: `board_lease`, a caller's
 * lease on the board kept by the owner (every call that changes the board asks it). 5: `board_lease`
 * `outside`, a call of an outside lease's holder (an owner of 4 would refuse it as malformed).
 */
export const SHARE_PROTOCOL = 5;

const owner = z.string().min(1).max(300);

export const shareRequest = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('hello'),
    protocol: z.number().int(),
    client: z.string().min(1).max(200),
    pid: z.number().int(),
  }),
  z.object({
    type: z.literal('job'),
    kind: z.enum(['exec', 'call', 'script']),
    code: z.string().max(4 * 1024 * 1024),
    owner,
    timeout_ms: z.number().int().positive().max(3_600_000).optional(),
  }),
  z.object({ type: z.literal('lease'), owner }),
  z.object({ type: z.literal('release') }),
  z.object({ type: z.literal('health') }),
  // A caller's lease on the board (boardLeases.ts), kept by the owner for every process.
  z.object({
    type: z.literal('board_lease'),
    request: z.discriminatedUnion('action', [
      z.object({
        action: z.literal('take'),
        holder: owner,
        ttlMs: z.number().positive(),
        note: z.string().max(200).optional(),
      }),
      z.object({ action: z.literal('release'), holder: owner }),
      z.object({ action: z.literal('status') }),
      z.object({
        action: z.literal('outside'),
        outside: z.object({
          key: z.string().min(1).max(100),
          name: z.string().min(1).max(200),
          lease: z.string().min(1).max(200).optional(),
          until: z.string().max(40).optional(),
        }),
      }),
    ]),
  }),
]);
export type ShareRequest = z.output<typeof shareRequest>;

/** A sign of life from a connection that holds a lease: never answered, so it keeps no order. */
export const aliveNotice = { type: 'alive' } as const;
export const isAliveNotice = (message: unknown): boolean =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'alive';

export const shareFailure = z.object({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

export const shareResponse = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('welcome'),
    protocol: z.number().int(),
    owner: z.object({ pid: z.number(), device: z.string(), socket: z.string(), since: z.string() }),
    /** How often a connection holding a lease must say `alive`. */
    alive_ms: z.number().int().positive(),
  }),
  z.object({ type: z.literal('done'), value: z.unknown() }),
  z.object({ type: z.literal('failed'), error: shareFailure }),
  z.object({ type: z.literal('leased') }),
  z.object({ type: z.literal('released') }),
  z.object({ type: z.literal('health'), health: z.record(z.string(), z.unknown()) }),
  z.object({
    type: z.literal('board_lease'),
    lease: z
      .object({ holder: z.string(), since: z.string(), until: z.string(), note: z.string().optional() })
      .optional(),
  }),
]);
export type ShareResponse = z.output<typeof shareResponse>;
