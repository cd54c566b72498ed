/**
 * Device errors are plain `Error`s with a `code` (STYLE.md §5), so callers branch on `code`
 * and render `message` (one actionable sentence) without knowing any class tree.
 */

export type DeviceErrorCode =
  /** No board at that address (nothing plugged in, wrong path, no REPL interface). */
  | 'not_found'
  /** Someone else holds the port; `details.holders` names them when the OS can tell. */
  | 'busy'
  /** The link dropped (unplug, reboot, closed session) while a job needed it. */
  | 'disconnected'
  /** A job overran its deadline; it was interrupted and the link resynced (`details.recovery`). */
  | 'timeout'
  /** The board ran the code and Python raised (`details.type`, `message`, `traceback`). */
  | 'python_error'
  /** The board answered with bytes that do not fit the raw-REPL protocol. */
  | 'protocol'
  /** The port never gave a raw-REPL prompt: not the board's REPL (its menu port, another device), or a board that does not answer. */
  | 'no_repl'
  /** The caller's AbortSignal fired: a queued job was dropped or a running one interrupted. */
  | 'canceled'
  /** The code to send contains bytes the raw REPL treats as commands (0x00-0x1f except tab/LF/CR). */
  | 'invalid_code';

export class DeviceError extends Error {
  readonly code: DeviceErrorCode;
  readonly details: Record<string, unknown>;
  /**
   * True when the same call may succeed if simply retried later. Never for a job the board may
   * already have run (`details.mayHaveRun`: the link dropped or the reply was lost after the code
   * went out): a blind retry could run it twice. Nor for a board another caller leased
   * (`details.leasedTo`): the lease holds until its end, which may be a day away, so only waiting or
   * its holder helps. The rule lives here so that it holds wherever the error is rebuilt (the share
   * protocol carries code, message and details).
   */
  readonly retryable: boolean;

  constructor(code: DeviceErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'DeviceError';
    this.code = code;
    this.details = details;
    this.retryable =
      details.mayHaveRun !== true &&
      details.leasedTo === undefined &&
      (code === 'busy' || code === 'disconnected' || code === 'timeout' || code === 'not_found');
  }

  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message, retryable: this.retryable, ...this.details };
  }
}

export function isDeviceError(value: unknown, code?: DeviceErrorCode): value is DeviceError {
  return value instanceof DeviceError && (code === undefined || value.code === code);
}

/** Wraps anything thrown by a lower layer (fs, net, serialport) without losing its text. */
export function asDeviceError(value: unknown, fallback: DeviceErrorCode, context: string): DeviceError {
  if (value instanceof DeviceError) return value;
  const text = value instanceof Error ? value.message : String(value);
  return new DeviceError(fallback, `${context}: ${text}`);
}
