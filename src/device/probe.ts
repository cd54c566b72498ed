/**
 * A raw-REPL probe: opens a link, asks for raw mode and waits for the header (spec §1 "Role
 * detection"; §3.2). Confirms that a candidate port really is a MicroPython REPL before a
 * session takes it. The board is left in raw mode; the session enters it again anyway.
 */
import { asDeviceError } from './errors.js';
import type { DeviceLink } from './link.js';
import { ReplDriver } from './replDriver.js';

export const PROBE_TIMEOUT_MS = 1500;

/** Resolves when `link` answers like a raw REPL; rejects with a DeviceError otherwise. Always closes the link. */
export async function probeRawRepl(link: DeviceLink, timeoutMs = PROBE_TIMEOUT_MS): Promise<void> {
  const driver = new ReplDriver(link);
  try {
    await link.open();
    await driver.enterRaw(timeoutMs);
  } catch (error) {
    throw asDeviceError(error, 'not_found', `${link.id} did not answer a raw-REPL probe`);
  } finally {
    driver.dispose();
    await link.close().catch(() => {});
  }
}
