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

/**
 * The same, for a board reached over the network (rfc2217://, tcp://, socket://): what fails there
 * is the exporter and the hop, not a cable on this machine.
 */
const NETWORK_HINTS: Partial<Record<DeviceError['code'], string>> = {
  timeout:
    'The board was interrupted and is ready again; over a network hop each call also waits for the round trip: retry, or give the call more time.',
  disconnected:
    "The connection to the board's exporter dropped (ser2net stopped or restarted, the network, or the board unplugged on its host); the server reconnects by itself: check that ser2net runs on that host and this machine reaches it, then retry.",
  busy: "The exporter's port already has a client (a raw REPL takes one: ser2net max-connections 1): close the other client (a labgrid console, another jumperless-mcp, a terminal) and retry.",
  not_found:
    'Nothing answered at that address: check the host and port, that ser2net runs there with an accepter on that port, and that no firewall is in the way (jumperless-mcp doctor --device <url>).',
  no_repl:
    "The exporter answered but no REPL did: ser2net's connector must name the board's CDC2 port (USB interface 4, /dev/serial/by-path/...:1.4) at 115200n81, and the board must be plugged in on that host.",
};

/** For a call whose answer was lost after the board had its code: never a plain retry. */
const MAY_HAVE_RUN_HINT =
  'The board may have run the call before its answer was lost: read back what it changes (state_get, power_get) before sending it again.';

/**
 * A board address that crosses a network: the exporter, not a local port, is the other end. The
 * session names its link in every message it makes (and in `details.port` where it has one).
 */
const NETWORK_PORT = /\b(?:tcp|socket|rfc2217):\/\//;

/** For a call refused because another caller holds the board's lease (device/boardLeases.ts). */
const LEASED_HINT =
  "Wait until the lease ends (device_info and the board's health say who holds it and until when), or ask its holder to release it; tools that only read still work.";

function deviceHint(error: DeviceError): string {
  if (error.details.mayHaveRun === true) return MAY_HAVE_RUN_HINT;
  if (error.details.leasedTo !== undefined) return LEASED_HINT;
  const port = error.details.port;
  const network = NETWORK_PORT.test(typeof port === 'string' ? port : error.message);
  return (network ? NETWORK_HINTS[error.code] : undefined) ?? DEVICE_HINTS[error.code];
}

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
      message: `${sentence(error.message)} ${deviceHint(error)}`,
      // Bytes out of step were resynced: a retry normally works, unless the board may have run it.
      retryable: error.code === 'protocol' ? error.details.mayHaveRun !== true : error.retryable,
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
