/**
 * Finds the telemetry port (CDC3) of the board whose REPL is at `replPath`: among the board's other
 * ports (the same USB location), the one on interface 6 when the OS names interfaces, else each
 * port whose interface it does not tell; confirmed by what it answers (`:json:power` gives the
 * state's power section, which no other port does). A port known to be the menu or the UART bridge
 * is never asked: bytes there reach the menu or an Arduino.
 */
import { realpath } from 'node:fs/promises';
import { type DiscoveryOptions, type JumperlessPort, listJumperlessPorts } from './discovery.js';
import { serialLink } from './serialLink.js';
import { TelemetryPort } from './telemetry.js';

export interface TelemetryDiscoveryOptions extends DiscoveryOptions {
  /** Opens a candidate; default the serial port at `path`. */
  open?: (path: string) => TelemetryPort;
}

/** The ports worth asking, in the order to ask them. */
export function telemetryCandidates(ports: readonly JumperlessPort[], replPath: string): JumperlessPort[] {
  const repl = ports.find((port) => port.path === replPath);
  if (!repl) return [];
  const own = ports.filter((port) => port.location === repl.location && port.path !== replPath);
  const named = own.filter((port) => port.role === 'backchannel');
  return named.length > 0 ? named : own.filter((port) => port.interfaceNumber === undefined);
}

/** True when `answer` is the power section `:json:power` gives. */
export function isPowerAnswer(answer: unknown): boolean {
  const power = (answer as { power?: Record<string, unknown> } | null)?.power;
  return typeof power === 'object' && power !== null && typeof power.top_rail === 'number';
}

/** The confirmed telemetry port, open, or undefined when the board has none that answers. */
export async function findTelemetryPort(
  replPath: string,
  options: TelemetryDiscoveryOptions = {},
): Promise<TelemetryPort | undefined> {
  const ports = await listJumperlessPorts(options).catch(() => []);
  // The REPL may be named through a link (/dev/serial/by-path/...): compare where it leads.
  const real = await realpath(replPath).catch(() => replPath);
  const withReal = await Promise.all(
    ports.map(async (port) => ({ ...port, path: await realpath(port.path).catch(() => port.path) })),
  );
  const open = options.open ?? ((path: string) => new TelemetryPort(serialLink(path)));
  for (const candidate of telemetryCandidates(withReal, real)) {
    const port = open(candidate.path);
    try {
      if (isPowerAnswer(await port.power(AbortSignal.timeout(3_000)))) return port;
    } catch {
      // Not it (no answer, busy, another role): ask the next.
    }
    await port.close().catch(() => {});
  }
  return undefined;
}

/** A telemetry port at a path the operator named, confirmed by its answer like a found one. */
export async function openTelemetryPort(
  path: string,
  open: (path: string) => TelemetryPort = (p) => new TelemetryPort(serialLink(p)),
): Promise<TelemetryPort> {
  const port = open(path);
  try {
    const answer = await port.power(AbortSignal.timeout(3_000));
    if (!isPowerAnswer(answer))
      throw new Error(
        `${path} is not the board's telemetry port (CDC3): its :json:power answer has no power section`,
      );
    return port;
  } catch (error) {
    await port.close().catch(() => {});
    throw error;
  }
}
