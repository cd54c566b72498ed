import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { type PtyBridge, ptyBridge } from './ptyBridge.js';
import type { SimBoard } from './simBoard.js';
import { PORT_NAMES, type PortName } from './workerProtocol.js';

/** The USB ports as a person knows them (what a refusal names). */
export const PORT_ROLES: Record<PortName, string> = {
  main: 'CDC0 main menu',
  uart: 'CDC1 UART passthrough',
  repl: 'CDC2 MicroPython REPL',
  backchannel: 'CDC3 backchannel',
};

/**
 * How long a newcomer waits for the host before it is refused: a host that closes and reconnects
 * at once (a session reopening its link) may be seen connecting before its old connection ends.
 */
export const HANDOVER_MS = 250;

/** A second host turned away from a port: who, and who holds it. */
export interface Refusal {
  port: PortName;
  refused: string;
  holder: string;
}

interface Host {
  socket: Socket;
  /** `a TCP client (127.0.0.1:51234)`, `the pty /tmp/jl/ttyJL-repl`. */
  label: string;
}

/**
 * Serves each port of a SimBoard to one host at a time, as a USB serial port is opened by one
 * program at a time: over TCP (the printed `tcp://` URL) and through doors for the ptys
 * (PtyExposure), which take the port only while a program has the pty open. A second host is
 * refused with one line on its connection (and the board's `refused` event, for the sim's console); the host keeps
 * the port until it leaves. A host connected across an unplug is dropped, as the OS drops an open
 * serial port when the cable goes.
 */
export class TcpExposure {
  private readonly servers = new Map<PortName, Server>();
  private readonly doors: Server[] = [];
  private readonly hosts = new Map<PortName, Host>();
  /** Newcomers waiting for the host to leave (at most HANDOVER_MS). */
  private readonly waiting = new Set<Socket>();

  private constructor(private readonly board: SimBoard) {
    board.on('unplug', () => {
      for (const host of this.hosts.values()) host.socket.destroy();
      for (const socket of this.waiting) socket.destroy();
      this.hosts.clear();
      this.waiting.clear();
    });
  }

  static async start(board: SimBoard, host = '127.0.0.1', basePort = 0): Promise<TcpExposure> {
    const exposure = new TcpExposure(board);
    for (const [index, name] of PORT_NAMES.entries()) {
      const server = await exposure.listen(
        host,
        basePort === 0 ? 0 : basePort + index,
        (socket) => `a TCP client (${socket.remoteAddress}:${socket.remotePort})`,
        name,
      );
      exposure.servers.set(name, server);
    }
    return exposure;
  }

  /** port name -> TCP port number */
  get ports(): Record<PortName, number> {
    const entries = PORT_NAMES.map((name) => [name, portOf(this.servers.get(name))] as const);
    return Object.fromEntries(entries) as Record<PortName, number>;
  }

  /**
   * A private loopback door to one port for a pty bridge: its hosts are named `label` (the pty's
   * path), and take turns with the TCP clients.
   */
  async door(name: PortName, label: string): Promise<number> {
    const server = await this.listen('127.0.0.1', 0, () => label, name);
    this.doors.push(server);
    return portOf(server);
  }

  async close(): Promise<void> {
    for (const host of this.hosts.values()) host.socket.destroy();
    for (const socket of this.waiting) socket.destroy();
    const servers = [...this.servers.values(), ...this.doors];
    await Promise.all(servers.map((server) => new Promise((r) => server.close(r))));
  }

  private listen(
    host: string,
    port: number,
    label: (socket: Socket) => string,
    name: PortName,
  ): Promise<Server> {
    const server = createServer((socket) => this.arrive(name, socket, label(socket)));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve(server));
    });
  }

  private arrive(name: PortName, socket: Socket, label: string): void {
    socket.setNoDelay(true);
    socket.on('error', () => socket.destroy());
    if (!this.board.plugged) {
      socket.destroy();
      return;
    }
    if (!this.hosts.has(name)) {
      this.attach(name, socket, label);
      return;
    }
    // Taken: wait (reading nothing) for the host to leave, then refuse.
    socket.pause();
    this.waiting.add(socket);
    const started = Date.now();
    const retry = () => {
      if (socket.destroyed || !this.waiting.has(socket)) return;
      if (!this.hosts.has(name) && this.board.plugged) {
        this.waiting.delete(socket);
        this.attach(name, socket, label);
        socket.resume();
        return;
      }
      if (Date.now() - started < HANDOVER_MS) {
        setTimeout(retry, 10);
        return;
      }
      this.waiting.delete(socket);
      const holder = this.hosts.get(name)?.label ?? 'another host';
      socket.end(
        `\r\njumperless-mcp sim: ${PORT_ROLES[name]} is in use by ${holder}; a port takes one host at a time, as a USB serial port does: close that one first\r\n`,
      );
      this.board.emit('refused', { port: name, refused: label, holder });
    };
    setTimeout(retry, 10);
  }

  private attach(name: PortName, socket: Socket, label: string): void {
    this.hosts.set(name, { socket, label });
    const port = this.board.port(name);
    const toHost = (data: Buffer) => socket.write(data);
    port.on('data', toHost);
    socket.on('data', (data) => {
      if (this.board.plugged && !port.destroyed) port.write(data);
    });
    const dropHost = () => socket.destroy();
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      port.off('data', toHost);
      port.off('close', dropHost);
      if (this.hosts.get(name)?.socket === socket) this.hosts.delete(name);
    };
    // A host that ends its side has left: the next one may come in while this socket closes.
    socket.on('end', leave);
    socket.on('close', leave);
    port.once('close', dropHost);
  }
}

function portOf(server: Server | undefined): number {
  const address = server?.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/**
 * Gives each port a real pseudo-terminal (what `serialport` opens), made by socat or Python
 * (ptyBridge.ts) and bridged to a door of the TCP exposure while a program has it open.
 * Unplugging removes the device nodes; replugging brings them back.
 */
export class PtyExposure {
  private readonly bridges = new Map<PortName, ChildProcess>();
  private closing = false;
  /** Why a bridge could not start, by port (it ended before making its pty). */
  private readonly failures = new Map<PortName, string>();
  /** Ports whose bridge made its pty at least once. */
  private readonly made = new Set<PortName>();

  private constructor(
    private readonly board: SimBoard,
    private readonly doors: Record<PortName, number>,
    readonly dir: string,
    private readonly bridge: PtyBridge,
  ) {
    board.on('unplug', () => this.stopBridges());
    board.on('replug', () => {
      this.startBridges().catch((error: unknown) => {
        process.stderr.write(
          `virtual board: the ptys did not come back after the replug: ${String(error)}\n`,
        );
      });
    });
  }

  static async start(board: SimBoard, tcp: TcpExposure, dir: string): Promise<PtyExposure> {
    const bridge = ptyBridge();
    if ('missing' in bridge) throw new Error(bridge.missing);
    mkdirSync(dir, { recursive: true });
    const doors = {} as Record<PortName, number>;
    for (const name of PORT_NAMES)
      doors[name] = await tcp.door(name, `the pty ${join(dir, `ttyJL-${name}`)}`);
    const exposure = new PtyExposure(board, doors, dir, bridge);
    await exposure.startBridges();
    return exposure;
  }

  /** port name -> device path (a symlink to the pty) */
  get paths(): Record<PortName, string> {
    return Object.fromEntries(PORT_NAMES.map((name) => [name, this.pathOf(name)])) as Record<
      PortName,
      string
    >;
  }

  async close(): Promise<void> {
    this.closing = true;
    this.stopBridges();
  }

  private pathOf(name: PortName): string {
    return join(this.dir, `ttyJL-${name}`);
  }

  private async startBridges(): Promise<void> {
    for (const name of PORT_NAMES) this.startBridge(name);
    // The bridges create the links asynchronously; wait until they are all there (a bridge that
    // cannot run says so when it exits; this is for one that hangs, on a machine that may be busy).
    const deadline = Date.now() + 15_000;
    while (PORT_NAMES.some((name) => !existsSync(this.pathOf(name)))) {
      // Stopped (or unplugged) meanwhile: nothing to wait for.
      if (this.closing || !this.board.plugged) return;
      const failed = this.failures.size > 0;
      if (failed || Date.now() > deadline) {
        this.closing = true;
        this.stopBridges();
        const why = [...this.failures.values()][0];
        throw new Error(
          failed
            ? `${this.bridge.command} could not make the ptys${why ? `: ${why}` : ''}`
            : `${this.bridge.name} did not create the ptys in ${this.dir} within 15 s`,
        );
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    for (const name of PORT_NAMES) this.made.add(name);
  }

  private startBridge(name: PortName): void {
    // A bridge ends when its TCP side does (socat also when the host closes the pty): the next
    // one makes the pty again while the board is plugged in.
    const child = spawn(this.bridge.command, this.bridge.args(this.pathOf(name), this.doors[name]), {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let said = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      said = `${said}${chunk.toString()}`.slice(-2000);
    });
    const link = this.pathOf(name);
    child.on('error', (error) => this.failures.set(name, error.message));
    child.on('exit', (code) => {
      if (this.bridges.get(name) !== child) return;
      this.bridges.delete(name);
      // A bridge that ends before its pty ever appeared cannot run here (a broken python3, a
      // socat without PTY support): say why once instead of starting it again and again.
      if (!existsSync(link) && !this.made.has(name)) {
        const last = said.trim().split('\n').at(-1);
        this.failures.set(name, last || `it exited with code ${code}`);
        return;
      }
      if (!this.closing && this.board.plugged) this.startBridge(name);
    });
    this.bridges.set(name, child);
  }

  private stopBridges(): void {
    const children = [...this.bridges.values()];
    this.bridges.clear();
    for (const child of children) child.kill();
  }
}
