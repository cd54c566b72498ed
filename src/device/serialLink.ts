/**
 * A serial port (USB CDC) as a DeviceLink, through the `serialport` package, loaded lazily so
 * that TCP and simulator users never load native bindings.
 *
 * Always 115200 baud with DTR asserted: the firmware only talks to a port whose DTR is up, and
 * 1200 baud with DTR low reboots CDC0/CDC2 into the bootloader (spec §1 "Baud rate", "DTR").
 */
import type { Duplex } from 'node:stream';
import { DeviceError } from './errors.js';
import { type DeviceLink, streamLink } from './link.js';
import { describeHolders, findPortHolders } from './portHolders.js';

export const SERIAL_BAUD = 115200;

export function serialLink(path: string): DeviceLink {
  return streamLink(path, { connect: () => openSerial(path), release: closeSerial });
}

/** Closes the port for real: destroying a SerialPort stream leaves its fd (and lock) open. */
export function closeSerial(stream: Duplex): Promise<void> {
  const port = stream as Duplex & { isOpen?: boolean; close?: (callback: () => void) => void };
  return new Promise((resolve) => {
    if (!port.isOpen || typeof port.close !== 'function') {
      if (!port.destroyed) port.destroy();
      resolve();
      return;
    }
    port.close(() => {
      port.destroy();
      resolve();
    });
  });
}

export async function openSerial(path: string): Promise<Duplex> {
  const { SerialPort } = await import('serialport');
  const port = new SerialPort({ path, baudRate: SERIAL_BAUD, autoOpen: false });
  await new Promise<void>((resolve, reject) => {
    port.open((error) => (error ? reject(error) : resolve()));
  }).catch(async (error: Error) => {
    throw await openError(path, error);
  });
  // Opening a tty raises DTR already; say it explicitly. Pseudo-terminals (socat, tests) have
  // no modem lines and answer ENOTTY, which is harmless.
  await new Promise<void>((resolve) => port.set({ dtr: true }, () => resolve()));
  return port;
}

async function openError(path: string, error: Error): Promise<DeviceError> {
  const text = error.message;
  if (/cannot lock|resource busy|EBUSY|temporarily unavailable/i.test(text)) {
    const holders = await findPortHolders(path);
    return new DeviceError('busy', `${path} is busy: ${describeHolders(holders)}`, { port: path, holders });
  }
  if (/permission denied|EACCES/i.test(text)) {
    return new DeviceError(
      'not_found',
      `no permission to open ${path}: add your user to the group that owns it (often dialout)`,
      { port: path, reason: 'permission' },
    );
  }
  if (/no such file|ENOENT|not found|cannot find/i.test(text)) {
    return new DeviceError('not_found', `no serial port at ${path}`, { port: path });
  }
  return new DeviceError('not_found', `cannot open ${path}: ${text}`, { port: path });
}
