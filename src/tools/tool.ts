/**
 * Tools that act on the board (STYLE.md §3): `defineDeviceTool` makes one from its spec, saying how
 * a call has the board (`atomic`, `mutates`) and which firmware functions it needs; the one adapter
 * (core/toolSubsystem.ts) holds the board for each call and hands the handler the held board and
 * the limits. A tool that needs no board is `defineTool` (core/toolDefinition.ts).
 */
import type { z } from 'zod';
import type { HandlerContext, Tool, ToolShape } from '../core/toolDefinition.js';
import type { Board, BoardClient } from '../device/board.js';
import type { BoardNotes } from './boardNotes.js';
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

/** How one call of a device tool has the board: the spec's choices with their defaults applied. */
export interface BoardUse {
  /** The first job takes a lease kept to the end of the call (see `DeviceToolSpec.atomic`). */
  atomic: boolean;
  /** Another caller's board lease refuses the call (see `DeviceToolSpec.mutates`). */
  mutates: boolean;
}

/** A tool that acts on the board, as the catalog holds it. */
export interface DeviceTool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject>
  extends Tool<I, O, ToolEnv> {
  board: BoardUse;
  handle(args: z.infer<I>, context: ToolContext): Promise<z.infer<O>>;
}

/** A device tool of unknown argument and result types, as a catalog holds it. */
// biome-ignore lint/suspicious/noExplicitAny: the catalog holds tools of every shape.
export type AnyDeviceTool = DeviceTool<any, any>;

/**
 * A tool that acts on the board. The adapter that runs it (core/toolSubsystem.ts) holds the board
 * for the call as `board` says (its first job takes the caller's turn, the call's signal goes to
 * every job), refuses firmware that lacks a required function, and hands the handler the held
 * board and the limits.
 */
export function defineDeviceTool<I extends z.ZodObject, O extends z.ZodObject>(
  spec: DeviceToolSpec<I, O>,
): DeviceTool<I, O> {
  const { atomic, mutates, ...shape } = spec;
  return {
    // Every tool that acts on the board shows the board it left, where the host renders apps.
    app: BOARD_APP_URI,
    ...shape,
    board: { atomic: atomic !== false, mutates: mutates ?? spec.kind !== 'read' },
  };
}
