/**
 * Tools that act on the board (STYLE.md §3): `defineDeviceTool` wraps a handler so that it gets
 * the board held for its call (its first job takes the caller's turn, the call's signal goes to
 * every job), refuses firmware that lacks a required function, and hands the handler the board
 * and the limits. A tool that needs no board is `defineTool` (core/toolDefinition.ts).
 */
import type { z } from 'zod';
import { missingFunctionsReason } from '../board/firmware.js';
import { ToolError } from '../core/errors.js';
import type { HandlerContext, Tool, ToolShape } from '../core/toolDefinition.js';
import { type Board, type BoardClient, holderOf } from '../device/board.js';
import { DeviceError } from '../device/errors.js';
import { type BoardNotes, noteResult, notesOf } from './boardNotes.js';
import type { SafetyPolicy } from './safety.js';
import { BOARD_APP_URI } from './viewPage.js';

export interface ToolImage {
  mimeType: 'image/png';
  /** Base64. */
  data: string;
}

/** What a device tool acts on in one call: the open board and the limits in force. */
export interface ToolEnv {
  /** Absent for a server without a board: device tools then fail with `not_found`. */
  board?: Board;
  /** Voltage limits in force (board envelope, tightened by the operator). */
  safety: SafetyPolicy;
  /**
   * The outside lease name the operator bound this board to (a labgrid place, a Jumpstarter
   * exporter): a caller presenting it holds the board (device/boardLeases.ts). Absent: none.
   */
  leaseName?: string;
}

/** What a device tool's handler gets: the call's context with the board held for it. */
export interface ToolContext extends HandlerContext {
  /** The board, held for this call (see `atomic`); every job takes the call's signal. */
  board: BoardClient;
  safety: SafetyPolicy;
  /** The name this call holds a board lease under: its outside lease's on a board bound to it, else the caller's. */
  leaseHolder: string;
  /** Attaches a picture to the result (after the JSON text item). */
  attachImage(image: ToolImage): void;
  /** The board's latest readings and OLED text, for what draws the board (boardNotes.ts). */
  notes: BoardNotes;
}

export interface DeviceToolSpec<I extends z.ZodObject, O extends z.ZodObject> extends ToolShape<I, O> {
  /**
   * Default true: the call holds the board from its first job to its end, so no other caller's
   * job runs in between (DESIGN.md §3). False only for tools that wait for a person for long
   * (each job then takes its own turn); such a tool keeps nothing on the board between its jobs
   * that another call could touch.
   */
  atomic?: boolean;
  /**
   * Whether the call may change the board, so that another caller's board lease refuses it.
   * Default: every kind but `read`. False only for a tool that must answer a refused caller (the
   * lease tool itself).
   */
  mutates?: boolean;
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
): Tool<I, O, ToolEnv> {
  const { handle, atomic, mutates, ...shape } = spec;
  return {
    // Every tool that acts on the board shows the board it left, where the host renders apps.
    app: BOARD_APP_URI,
    ...shape,
    async handle(args, context, env) {
      if (!env.board) {
        throw new DeviceError('not_found', 'this server was started without a board');
      }
      const changes = mutates ?? spec.kind !== 'read';
      // A caller's outside lease counts on the board bound to its name only.
      const presented = context.outsideLease;
      const outside =
        env.leaseName !== undefined && presented?.name === env.leaseName ? presented : undefined;
      const call = { owner: context.caller, ...(outside ? { outside } : {}) };
      const held = env.board.hold({
        signal: context.signal,
        ...call,
        atomic: atomic !== false,
        mutates: changes,
      });
      try {
        await checkFirmware(spec.name, spec.requiresFor ? spec.requiresFor(args) : spec.requires, held.board);
        const result = await handle(args, {
          ...context,
          board: held.board,
          safety: env.safety,
          leaseHolder: holderOf(call),
          notes: notesOf(env.board),
          attachImage: (image) =>
            context.attach({ type: 'image', data: image.data, mimeType: image.mimeType }),
        });
        // A reading or the OLED's text goes where the board's pictures show it (boardNotes.ts).
        noteResult(env.board, spec.name, args, result);
        return result;
      } catch (error) {
        throw changes ? error : harmlessRerun(error);
      } finally {
        held.release();
      }
    },
  };
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
