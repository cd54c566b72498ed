/**
 * A person's yes before a hazard (issue 25): which calls ask, and what happens when the client
 * cannot ask. A tool names its hazard from its arguments (`hazard` on the tool); the policy is the
 * operator's (`--confirm`), applied once in runTool before the tool runs, so a question never
 * holds the board or eats the tool's deadline, and a refused hazard applies nothing.
 */

/**
 * - `hazards` (default): ask before a hazard when the client can ask (its own dialog, or the board
 *   app's form where the client renders apps); a client that cannot runs it as before.
 * - `always`: a hazard runs only after a person's yes; a client that can neither is refused.
 * - `never`: never ask.
 */
export type ConfirmMode = 'always' | 'hazards' | 'never';

export const CONFIRM_MODES: readonly ConfirmMode[] = ['always', 'hazards', 'never'];

/** What a tool's `hazard` weighs its arguments against. */
export interface HazardLimits {
  /** A supply set above this many volts (either sign) is a hazard. */
  aboveVolts: number;
}

export interface ConfirmPolicy extends HazardLimits {
  mode: ConfirmMode;
}

export const DEFAULT_CONFIRM: ConfirmPolicy = { mode: 'hazards', aboveVolts: 5 };

/** How long a question may wait for the person before the call is refused. */
export const CONFIRM_TIMEOUT_MS = 5 * 60_000;
