/**
 * Device addresses as the user writes them (`--port`): a serial path, `auto` (or
 * `auto:<usb-location>`), `tcp://host:port` (a raw TCP port: ser2net, the simulator's TCP ports;
 * `socket://host:port`, pyserial's name for it, is the same link), `rfc2217://host:port` (a
 * serial port exported over RFC 2217: ser2net's telnet(rfc2217), a labgrid exporter), or `sim` /
 * `sim:parts.json` (the in-process virtual board), `sim@<firmware>` / `sim@<firmware>:parts.json`
 * for the virtual board running a given firmware release. `createLink` turns one into a DeviceLink.
 */
import type { Duplex } from 'node:stream';
import { type AutoPortOptions, resolveAutoPort } from './autoPort.js';
import { DeviceError } from './errors.js';
import { type DeviceLink, type StreamSource, streamLink } from './link.js';
import { rfc2217Link } from './rfc2217Link.js';
import { closeSerial, openSerial, serialLink } from './serialLink.js';
import { networkId, tcpLink } from './tcpLink.js';

export type DeviceUrl =
  | { kind: 'auto'; location?: string }
  | { kind: 'serial'; path: string }
  | { kind: 'tcp'; host: string; port: number }
  | { kind: 'rfc2217'; host: string; port: number }
  | { kind: 'sim'; partsFile?: string; firmware?: string };

export function parseDeviceUrl(text: string): DeviceUrl {
  const value = text.trim();
  if (value === '' || value === 'auto') return { kind: 'auto' };
  if (value.startsWith('auto:')) return { kind: 'auto', location: value.slice(5) };
  if (value === 'sim') return { kind: 'sim' };
  if (value.startsWith('sim:')) return { kind: 'sim', partsFile: value.slice(4) };
  if (value.startsWith('sim@')) {
    const rest = value.slice(4);
    const colon = rest.indexOf(':');
    const firmware = colon === -1 ? rest : rest.slice(0, colon);
    if (firmware === '') throw usage(text, 'sim@<firmware> names a release, e.g. sim@5.7.0.13');
    return colon === -1
      ? { kind: 'sim', firmware }
      : { kind: 'sim', firmware, partsFile: rest.slice(colon + 1) };
  }
  if (value.startsWith('serial:')) return { kind: 'serial', path: value.slice(7) };
  const net = /^(tcp|socket|rfc2217):\/\/(\[[^\]]+\]|[^:/]+):(\d+)\/?$/i.exec(value);
  if (net) {
    const port = Number(net[3]);
    if (port < 1 || port > 65535) throw usage(text, 'the TCP port must be 1-65535');
    const host = (net[2] ?? '').replace(/^\[|\]$/g, '');
    return { kind: net[1]?.toLowerCase() === 'rfc2217' ? 'rfc2217' : 'tcp', host, port };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw usage(
      text,
      'use a serial path, auto, auto:<usb-location>, tcp://host:port (or socket://), rfc2217://host:port, sim or sim:<parts.json>',
    );
  }
  return { kind: 'serial', path: value };
}

export function formatDeviceUrl(url: DeviceUrl): string {
  switch (url.kind) {
    case 'auto':
      return url.location === undefined ? 'auto' : `auto:${url.location}`;
    case 'serial':
      return url.path;
    case 'tcp':
    case 'rfc2217':
      return networkId(url.kind, url.host, url.port);
    case 'sim': {
      const base = url.firmware === undefined ? 'sim' : `sim@${url.firmware}`;
      return url.partsFile === undefined ? base : `${base}:${url.partsFile}`;
    }
  }
}

/** The same address on the virtual board of a given release; other addresses as they are. */
export function withSimFirmware(device: string, firmware: string | undefined): string {
  if (firmware === undefined) return device;
  const url = parseDeviceUrl(device);
  return url.kind === 'sim' ? formatDeviceUrl({ ...url, firmware }) : device;
}

/**
 * Makes the in-process virtual board's REPL stream. Injected by the caller (the CLI), because
 * device/ must not import sim/ (DESIGN.md §2).
 */
export type SimFactory = (options: {
  partsFile?: string;
  firmware?: string;
}) => Promise<StreamSource> | StreamSource;

export interface CreateLinkOptions extends AutoPortOptions {
  simFactory?: SimFactory;
}

export async function createLink(
  target: string | DeviceUrl,
  options: CreateLinkOptions = {},
): Promise<DeviceLink> {
  const url = typeof target === 'string' ? parseDeviceUrl(target) : target;
  switch (url.kind) {
    case 'serial':
      return serialLink(url.path);
    case 'tcp':
      return tcpLink(url.host, url.port);
    case 'rfc2217':
      return rfc2217Link(url.host, url.port);
    case 'sim': {
      if (!options.simFactory) {
        throw new DeviceError(
          'not_found',
          'the simulator is not available here; sim URLs need the jumperless-mcp CLI',
        );
      }
      const source = await options.simFactory({
        ...(url.partsFile === undefined ? {} : { partsFile: url.partsFile }),
        ...(url.firmware === undefined ? {} : { firmware: url.firmware }),
      });
      return streamLink(formatDeviceUrl(url), source);
    }
    case 'auto':
      return autoLink(url.location === undefined ? options : { ...options, location: url.location });
  }
}

/** Resolves the port on every (re)open: after a replug the board may come back as another ttyACM. */
export function autoLink(options: AutoPortOptions = {}): DeviceLink {
  const id = options.location === undefined ? 'auto' : `auto:${options.location}`;
  const source: StreamSource & { address?: string } = {
    async connect(): Promise<Duplex> {
      const port = await resolveAutoPort(options);
      source.address = port.path;
      return openSerial(port.path);
    },
    release: closeSerial,
  };
  return streamLink(id, source);
}

function usage(text: string, hint: string): DeviceError {
  return new DeviceError('not_found', `cannot use "${text}" as a device: ${hint}`);
}
