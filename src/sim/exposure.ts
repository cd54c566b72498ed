import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { type PtyBridge, ptyBridge } from './ptyBridge.js';
import type { SimBoard } from './simBoard.js';
import { PORT_NAMES, type PortName } from './workerProtocol.js';

/**
 * Serves each port of a SimBoard over TCP (one client at a time per port, the newest wins, as a
 * serial device has one owner). A client connected across an unplug is dropped, as the OS drops an
 * open serial port when the cable goes.
 */
export class TcpExposure {
  private readonly servers = new Map<PortName, Server>();
  private readonly clients = new Map<PortName, Socket>();

  private constructor(private readonly board: SimBoard) {
    board.on('unplug', () => {
      for (const socket of this.clients.values()) socket.destroy();
      this.clients.clear();
    });
  }

  static async start(board: SimBoard, host = '127.0.0.1', basePort = 0): Promise<TcpExposure> {
    const exposure = new TcpExposure(board);
    for (const [index, name] of PORT_NAMES.entries()) {
      await exposure.listen(name, host, basePort === 0 ? 0 : basePort + index);
    }
    return exposure;
  }

  /** port name -> TCP port number */
  get ports(): Record<PortName, number> {
    const entries = PORT_NAMES.map((name) => {
      const address = this.servers.get(name)?.address();
      return [name, typeof address === 'object' && address ? address.port : 0] as const;
    });
    return Object.fromEntries(entries) as Record<PortName, number>;
  }

  async close(): Promise<void> {
    for (const socket of this.clients.values()) socket.destroy();
    await Promise.all([...this.servers.values()].map((server) => new Promise((r) => server.close(r))));
  }

  private listen(name: PortName, host: string, port: number): Promise<void> {
    const server = createServer((socket) => this.attach(name, socket));
    this.servers.set(name, server);
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  }

  private attach(name: PortName, socket: Socket): void {
    socket.setNoDelay(true);
    if (!this.board.plugged) {
      socket.destroy();
      return;
    }
    this.clients.get(name)?.destroy();
    this.clients.set(name, socket);
    const port = this.board.port(name);
    const toHost = (data: Buffer) => socket.write(data);
    port.on('data', toHost);
    socket.on('data', (data) => {
      if (this.board.plugged && !port.destroyed) port.write(data);
    });
    const dropClient = () => socket.destroy();
    const detach = () => {
      port.off('data', toHost);
      port.off('close', dropClient);
      if (this.clients.get(name) === socket) this.clients.delete(name);
    };
    socket.on('close', detach);
    socket.on('error', detach);
    port.once('close', dropClient);
  }
}

/**
 * Gives each port a real pseudo-terminal (what `serialport` opens), made by socat or Python
 * (ptyBridge.ts) and bridged to the TCP listener. Unplugging removes the device nodes; replugging
 * brings them back.
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
    private readonly tcp: TcpExposure,
    readonly dir: string,
    private readonly bridge: PtyBridge,
  ) {
    board.on('unplug', () => this.stopBridges());
    board.on('replug', () => void this.startBridges());
  }

  static async start(board: SimBoard, tcp: TcpExposure, dir: string): Promise<PtyExposure> {
    const bridge = ptyBridge();
    if ('missing' in bridge) throw new Error(bridge.missing);
    mkdirSync(dir, { recursive: true });
    const exposure = new PtyExposure(board, tcp, dir, bridge);
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
    const tcpPorts = this.tcp.ports;
    for (const name of PORT_NAMES) this.startBridge(name, tcpPorts[name]);
    // The bridges create the links asynchronously; wait until they are all there.
    const deadline = Date.now() + 5000;
    while (PORT_NAMES.some((name) => !existsSync(this.pathOf(name)))) {
      const failed = this.failures.size > 0;
      if (failed || Date.now() > deadline) {
        this.closing = true;
        this.stopBridges();
        const why = [...this.failures.values()][0];
        throw new Error(
          failed
            ? `${this.bridge.command} could not make the ptys${why ? `: ${why}` : ''}`
            : `${this.bridge.name} did not create the ptys in ${this.dir} within 5 s`,
        );
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    for (const name of PORT_NAMES) this.made.add(name);
  }

  private startBridge(name: PortName, tcpPort: number): void {
    // The pty stays open across a host closing and reopening it; the TCP side is reconnected for
    // every new bridge, so one bridge per plug-in.
    const child = spawn(this.bridge.command, this.bridge.args(this.pathOf(name), tcpPort), {
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
      if (!this.closing && this.board.plugged) this.startBridge(name, tcpPort);
    });
    this.bridges.set(name, child);
  }

  private stopBridges(): void {
    const children = [...this.bridges.values()];
    this.bridges.clear();
    for (const child of children) child.kill();
  }
}
