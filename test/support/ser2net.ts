/**
 * ser2net (the Debian package, 4.3) on loopback, exporting serial devices (here the virtual
 * board's ptys) as a lab's exporter would: RFC 2217 (`telnet(rfc2217)` accepter) or raw TCP. The
 * YAML config is written into a temporary folder, ports are chosen free, and the process runs in
 * the foreground so a test can kill and restart it. Tests say in one line why they cannot run
 * when ser2net is not installed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The ser2net binary: `JUMPERLESS_SER2NET`, then PATH, then Debian's /usr/sbin. */
export function findSer2net(): string | undefined {
  const named = process.env.JUMPERLESS_SER2NET;
  if (named) return existsSync(named) ? named : undefined;
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  return dirs.map((dir) => join(dir, 'ser2net')).find((path) => existsSync(path));
}

const SER2NET = findSer2net();

export const SER2NET_MISSING: string | undefined = SER2NET
  ? undefined
  : 'ser2net is not installed (apt-get install ser2net; CI installs it)';

if (SER2NET_MISSING) process.stderr.write(`skipping the tests over ser2net: ${SER2NET_MISSING}\n`);

/** One exported port: a serial device behind an RFC 2217 or a raw TCP accepter. */
export interface ExportedPort {
  protocol: 'rfc2217' | 'raw';
  device: string;
  /** ser2net connection options; default `max-connections: 1` (a raw REPL has one owner). */
  options?: Record<string, string | number | boolean>;
  /** `tcp(nodelay)`: ser2net sends small writes at once instead of holding them for an ACK (Nagle). */
  nodelay?: boolean;
}

export interface Ser2net {
  /** The TCP port of each exported port, in the order given. */
  readonly ports: number[];
  /** The YAML config it runs. */
  readonly config: string;
  /** Ends it at once (SIGKILL): every connection drops, as when the exporter host dies. */
  kill(): Promise<void>;
  /** Starts it again with the same config and ports. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The config for `ports` on loopback, as one YAML document. */
export function ser2netConfig(ports: readonly ExportedPort[], tcpPorts: readonly number[]): string {
  const lines = ['%YAML 1.1', '---'];
  ports.forEach((port, index) => {
    const tcp = port.nodelay ? 'tcp(nodelay)' : 'tcp';
    const accepter = port.protocol === 'rfc2217' ? `telnet(rfc2217),${tcp}` : tcp;
    const options = { 'max-connections': 1, ...port.options };
    lines.push(
      `connection: &port${index}`,
      `  accepter: ${accepter},127.0.0.1,${tcpPorts[index]}`,
      '  enable: on',
      '  options:',
      ...Object.entries(options).map(([key, value]) => `    ${key}: ${value}`),
      `  connector: serialdev,${port.device},115200n81,local`,
      '',
    );
  });
  return lines.join('\n');
}

/** Starts ser2net on `config` (its own text, with its ports already in it). */
export async function startSer2netConfig(config: string, tcpPorts: readonly number[]): Promise<Ser2net> {
  const binary = SER2NET;
  if (!binary) throw new Error(SER2NET_MISSING);
  const dir = await mkdtemp(join(tmpdir(), 'jl-ser2net-'));
  const configPath = join(dir, 'ser2net.yaml');
  await writeFile(configPath, config);
  let child: ChildProcess | undefined;
  let output = '';

  const start = async () => {
    output = '';
    // -n: foreground; -d: errors on stdout; -u: no UUCP lock files in the shared /var/lock.
    const started = spawn(binary, ['-n', '-d', '-u', '-c', configPath, '-P', join(dir, 'ser2net.pid')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    const keep = (chunk: Buffer) => {
      output = `${output}${chunk.toString()}`.slice(-4000);
    };
    started.stdout?.on('data', keep);
    started.stderr?.on('data', keep);
    const deadline = Date.now() + 10_000;
    while (!tcpPorts.every(listening)) {
      if (started.exitCode !== null) throw new Error(`ser2net exited: ${output.trim()}`);
      // A config error leaves ser2net running with nothing to serve: say so now, not in 10 s.
      if (/\.yaml:\d+\(column \d+\)/.test(output)) {
        started.kill('SIGKILL');
        throw new Error(`ser2net refused its config: ${output.trim()}`);
      }
      if (Date.now() > deadline) {
        started.kill('SIGKILL');
        throw new Error(`ser2net did not listen on ${tcpPorts.join(', ')}: ${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  const end = async (signal: NodeJS.Signals) => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(signal);
    await exited;
  };

  await start();
  return {
    ports: [...tcpPorts],
    config,
    kill: () => end('SIGKILL'),
    start,
    async stop() {
      await end('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Starts ser2net exporting `ports` on free loopback ports. */
export async function startSer2net(ports: readonly ExportedPort[]): Promise<Ser2net> {
  const tcpPorts = await Promise.all(ports.map(() => freePort()));
  return startSer2netConfig(ser2netConfig(ports, tcpPorts), tcpPorts);
}

/**
 * Whether something listens on 127.0.0.1:`port`, read from /proc/net/tcp: a probe connection would
 * take ser2net's one allowed client and open the device behind it.
 */
function listening(port: number): boolean {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  try {
    return readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .some((line) => {
        const [, local, , state] = line.trim().split(/\s+/);
        return state === '0A' && local === `0100007F:${hexPort}`;
      });
  } catch {
    return false;
  }
}
