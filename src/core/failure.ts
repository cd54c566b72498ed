/**
 * The single catch site's mapping (STYLE.md §5, DESIGN.md §4): what a tool threw becomes either a
 * tool failure the model can act on (`isError` result) or a protocol error (RpcError). Pure.
 */

import { DeviceError } from '../device/errors.js';
import { DISPATCH, JSONRPC, RpcError, ToolError } from './errors.js';
import type { ToolFailure } from './render.js';

/** What to try next, per device error code: the device message says what happened, this says what to do. */
const DEVICE_HINTS: Record<DeviceError['code'], string> = {
  timeout:
    'The board was interrupted and is ready again; retry, or give the call more time if it is a long one.',
  disconnected:
    'The board went away (unplugged or reset); the server reconnects by itself: check the USB cable and retry.',
  busy: 'Another program holds the port: close it (a serial monitor, Arduino IDE, mpremote, another server) and retry.',
  not_found: 'No board answered: plug the Jumperless in, or start the server with --device <port> or --sim.',
  python_error: 'The board refused the call; check the arguments against the tool description.',
  protocol: 'The board sent bytes out of step; the link was resynced, so a retry normally works.',
  no_repl:
    'If this is the board, its REPL is the CDC2 port (USB interface 4), not the menu port (CDC0): choose it with --device, or use --device auto. A board that hangs comes back after unplugging it.',
  canceled: 'The call was canceled before it finished.',
  invalid_code: 'The call contained bytes that cannot be sent to the board; remove control characters.',
};

export function failureOf(error: unknown, tool: string): ToolFailure | RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof ToolError) {
    return {
      code: error.code,
      message: error.message,
      retryable: error.options.retryable ?? false,
      ...error.options.details,
    };
  }
  if (error instanceof DeviceError) {
    const { code: _code, message: _message, retryable: _retryable, ...details } = error.toJSON();
    return {
      code: error.code,
      message: `${sentence(error.message)} ${DEVICE_HINTS[error.code]}`,
      retryable: error.code === 'protocol' ? true : error.retryable,
      ...details,
    };
  }
  const text = error instanceof Error ? error.message : String(error);
  return new RpcError(JSONRPC.internalError, `Internal error in tool ${tool}: ${text}`, {
    code: DISPATCH.internal,
    retryable: false,
    tool,
  });
}

function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
