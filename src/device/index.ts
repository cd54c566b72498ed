/**
 * The device layer's public surface (DESIGN.md §2): what tools/, core/ and cli/ import.
 * Everything else in this folder is an implementation detail.
 */
export { type AutoPortOptions, resolveAutoPort } from './autoPort.js';
export {
  autoLink,
  type CreateLinkOptions,
  createLink,
  type DeviceUrl,
  formatDeviceUrl,
  parseDeviceUrl,
  type SimFactory,
} from './deviceUrl.js';
export {
  type DiscoveryOptions,
  findReplPorts,
  type JumperlessPort,
  listJumperlessPorts,
  type PortRole,
} from './discovery.js';
export { asDeviceError, DeviceError, type DeviceErrorCode, isDeviceError } from './errors.js';
export type { RecoveryStep, SessionHealth, SessionState } from './health.js';
export { HELPER_NAME, parseMarked, RESULT_MARKER } from './helper.js';
export { type DeviceLink, type StreamSource, streamLink } from './link.js';
export { findPortHolders, type PortHolder } from './portHolders.js';
export { probeRawRepl } from './probe.js';
export { type PyValue, py, pyLiteral, pyString } from './pyLiteral.js';
export { type PythonErrorInfo, parsePythonError } from './pythonError.js';
export { type BannerInfo, encodeCode, MAX_OUTPUT_BYTES, parseBanner } from './rawRepl.js';
export { rfc2217Link } from './rfc2217Link.js';
export { serialLink } from './serialLink.js';
export {
  DeviceSession,
  type ExecResult,
  type HelperModule,
  type JobOptions,
  type SessionEvent,
  type SessionOptions,
} from './session.js';
export { tcpLink } from './tcpLink.js';

import { type CreateLinkOptions, createLink } from './deviceUrl.js';
import { DeviceSession, type SessionOptions } from './session.js';

/**
 * A session for a device address (`--port`): a serial path, `auto`, `auto:<usb-location>`,
 * `tcp://host:port` (or `socket://`), `rfc2217://host:port`, `sim` or `sim:<parts.json>`. Does not connect: the first job does, or
 * call `connect()` to fail early.
 */
export async function openDevice(
  address: string,
  options: CreateLinkOptions & { session?: SessionOptions } = {},
): Promise<DeviceSession> {
  return new DeviceSession(await createLink(address, options), options.session);
}
