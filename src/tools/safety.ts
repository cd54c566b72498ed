/**
 * Safety rules in code (DESIGN.md §4 "Device"): limits are checked before anything is sent.
 * The operator may tighten them (config); nothing loosens them past the board's envelope.
 */
import { DAC_SAFE } from '../board/limits.js';
import { ToolError } from '../core/errors.js';

export interface SafetyPolicy {
  /** Highest voltage a supply may be set to. Board envelope +8 V. */
  maxVolts: number;
  /** Lowest voltage a supply may be set to. Board envelope -8 V. */
  minVolts: number;
}

/** The board's own envelope (board/limits.ts). */
const BOARD_ENVELOPE: SafetyPolicy = { maxVolts: DAC_SAFE.max, minVolts: DAC_SAFE.min };

/** Tightens the envelope with operator limits; never widens it. */
export function safetyPolicy(limits: Partial<SafetyPolicy> = {}): SafetyPolicy {
  return {
    maxVolts: Math.min(BOARD_ENVELOPE.maxVolts, limits.maxVolts ?? BOARD_ENVELOPE.maxVolts),
    minVolts: Math.max(BOARD_ENVELOPE.minVolts, limits.minVolts ?? BOARD_ENVELOPE.minVolts),
  };
}

export function checkVolts(policy: SafetyPolicy, volts: number, what: string): void {
  if (!Number.isFinite(volts) || volts > policy.maxVolts || volts < policy.minVolts) {
    throw new ToolError(
      'unsafe_voltage',
      `${what}: ${volts} V is outside the allowed range ${policy.minVolts} V to ${policy.maxVolts} V.`,
      { details: { volts, minVolts: policy.minVolts, maxVolts: policy.maxVolts } },
    );
  }
}
