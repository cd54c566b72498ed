/**
 * What a tool is (STYLE.md §1-§5): one plain object with its name, schemas, kind, capability and
 * handler. Tools know nothing of MCP or of transports: a call brings a CallContext (signal,
 * progress, attachments, confirm), and a device tool (`defineDeviceTool`) gets its board bound by
 * the wrapper, which also checks the firmware has what it needs and holds the board for the call.
 */
import type { z } from 'zod';
import type { CallContext, Capability, ContentBlock, ToolKind } from '../contract/index.js';
import type { Board, BoardClient } from '../device/board.js';
import { DeviceError } from '../device/errors.js';
import type { SafetyPolicy } from './safety.js';

export {
  annotationsFor,
  CAPABILITIES,
  type CallContext,
  type Capability,
  type ToolAnnotations,
  type ToolKind,
} from '../contract/index.js';

export interface ToolImage {
  mimeType: 'image/png';
  /** Base64. */
  data: string;
}

/** Where a catalog is bound: the board its device tools act on and the limits in force. */
export interface ToolEnv {
  /** Absent for a server without a board: device tools then fail with `not_found`. */
  board?: Board;
  /** Voltage limits in force (board envelope, tightened by the operator). */
  safety: SafetyPolicy;
}

/** What a handler gets: the call's context and a place for content after the JSON text item. */
export interface HandlerContext extends CallContext {
  attach(block: ContentBlock): void;
}

/** What a device tool's handler gets: the call's context with the board held for it. */
export interface ToolContext extends HandlerContext {
  /** The board, held for this call (see `atomic`); every job takes the call's signal. */
  board: BoardClient;
  safety: SafetyPolicy;
  /** Attaches a picture to the result (after the JSON text item). */
  attachImage(image: ToolImage): void;
}

interface ToolShape<I extends z.ZodObject, O extends z.ZodObject> {
  /** snake_case `<group>_<verb>[_<noun>]`, unique in the catalog. */
  name: string;
  title: string;
  /** One or two sentences: what it does, the hazards that matter, units. */
  description: string;
  /** Tool group id (file name), e.g. `power`. */
  group: string;
  input: I;
  output: O;
  kind: ToolKind;
  capability: Capability;
  /** Run-time limit; default 10 s. */
  timeoutMs?: number;
  /** Left out of lists but callable by name (e.g. python_exec). */
  hidden?: boolean;
  /** Concurrent calls allowed; board tools queue on the session anyway. Default unlimited. */
  maxConcurrent?: number;
}

export interface Tool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject>
  extends ToolShape<I, O> {
  /** `jumperless` module functions the tool needs (set by defineDeviceTool; read by selftest). */
  requires?: readonly string[];
  /** The functions one call needs, when less than `requires` (see DeviceToolSpec). */
  requiresFor?(args: z.infer<I>): readonly string[];
  /** Runs one call with validated arguments; `env` is what the catalog was bound to. */
  handle(args: z.infer<I>, context: HandlerContext, env: ToolEnv): Promise<z.infer<O>>;
}

/** A tool that needs no board (the discovery meta-tools, fixtures). */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  tool: ToolShape<I, O> & { handle(args: z.infer<I>, context: HandlerContext): Promise<z.infer<O>> },
): Tool<I, O> {
  return tool;
}

export interface DeviceToolSpec<I extends z.ZodObject, O extends z.ZodObject> extends ToolShape<I, O> {
  /**
   * Default true: the call holds the board from its first job to its end, so no other caller's
   * job runs in between (DESIGN.md §3). False only for tools that wait for a person for long
   * (each job then takes its own turn); such a tool keeps nothing on the board between its jobs
   * that another call could touch.
   */
  atomic?: boolean;
  /** `jumperless` module functions the tool needs; when the firmware lacks one, it says so. */
  requires?: readonly string[];
  /**
   * The part of `requires` one call needs, for a tool whose branches use different functions (a
   * GPIO pull alone sets no level): a call is refused only for what it would use. `requires` stays
   * the union, for selftest and the firmware report.
   */
  requiresFor?(args: z.infer<I>): readonly string[];
  handle(args: z.infer<I>, context: ToolContext): Promise<z.infer<O>>;
}

/**
 * A tool that acts on the board: the wrapper holds the bound board for the call (its first job
 * takes the caller's turn, the call's signal goes to every job), refuses firmware that lacks a
 * required function, and hands the handler the board and the limits.
 */
export function defineDeviceTool<I extends z.ZodObject, O extends z.ZodObject>(
  spec: DeviceToolSpec<I, O>,
): Tool<I, O> {
  const { handle, atomic, ...shape } = spec;
  return {
    ...shape,
    async handle(args, context, env) {
      if (!env.board) {
        throw new DeviceError('not_found', 'this server was started without a board');
      }
      const held = env.board.hold({
        signal: context.signal,
        owner: context.caller,
        atomic: atomic !== false,
      });
      try {
        await checkFirmware(spec.name, spec.requiresFor ? spec.requiresFor(args) : spec.requires, held.board);
        return await handle(args, {
          ...context,
          board: held.board,
          safety: env.safety,
          attachImage: (image) =>
            context.attach({ type: 'image', data: image.data, mimeType: image.mimeType }),
        });
      } finally {
        held.release();
      }
    },
  };
}

async function checkFirmware(tool: string, requires: readonly string[] | undefined, board: BoardClient) {
  if (!requires || requires.length === 0) return;
  const available = await board.firmwareFunctions();
  const missing = requires.filter((name) => !available.has(name));
  if (missing.length > 0) {
    throw new ToolError(
      'unsupported_firmware',
      `This board's firmware has no ${missing.join(', ')}, which ${tool} needs. Update the Jumperless firmware (5.7 or later) and try again.`,
      { details: { missing } },
    );
  }
}

/** A catalog entry of unknown argument and result types. */
// biome-ignore lint/suspicious/noExplicitAny: the catalog holds tools of every shape.
export type AnyTool = Tool<any, any>;

/** A failure the tool reports as its result (`isError: true`), with an actionable message. */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly options: { retryable?: boolean; details?: Record<string, unknown> } = {},
  ) {
    super(message);
  }
}
