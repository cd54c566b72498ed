/**
 * What turns a TCP port into a pseudo-terminal for `serialport`: socat when it is on PATH, else a
 * few lines of Python's `pty` module (python3 is on most machines that lack socat), so the
 * simulator's ptys and the tests over them need no system package. `JUMPERLESS_PTY_BRIDGE`
 * (`socat` or `python3`) picks one; without either, `ptyBridge()` says so in one line.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface PtyBridge {
  readonly name: 'socat' | 'python3';
  readonly command: string;
  /** Arguments that link `link` to a new raw pty bridged to 127.0.0.1:`port`. */
  args(link: string, port: number): string[];
}

/**
 * Opens a pty (raw, no echo), links it, connects, and copies both ways. It keeps its own handle on
 * the pty, so a host that closes and reopens the device finds it still there (socat's ignoreeof);
 * it unlinks the device when the TCP side ends or it is told to stop (SIGTERM).
 */
const PYTHON_BRIDGE = `
import os, pty, select, signal, socket, sys, termios, tty
link, port = sys.argv[1], int(sys.argv[2])
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
master, slave = pty.openpty()
tty.setraw(slave)
attrs = termios.tcgetattr(slave)
attrs[3] &= ~termios.ECHO
termios.tcsetattr(slave, termios.TCSANOW, attrs)
sock = socket.create_connection(("127.0.0.1", port))
sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
tmp = link + ".new"
if os.path.lexists(tmp):
    os.unlink(tmp)
os.symlink(os.ttyname(slave), tmp)
os.replace(tmp, link)
try:
    while True:
        ready, _, _ = select.select([master, sock], [], [])
        if master in ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if data:
                sock.sendall(data)
        if sock in ready:
            data = sock.recv(65536)
            if not data:
                break
            os.write(master, data)
finally:
    if os.path.lexists(link):
        os.unlink(link)
`;

const BRIDGES: Record<PtyBridge['name'], PtyBridge> = {
  socat: {
    name: 'socat',
    command: 'socat',
    // ignoreeof: the pty stays open across a host closing and reopening it.
    args: (link, port) => [`PTY,link=${link},raw,echo=0,ignoreeof`, `TCP:127.0.0.1:${port},nodelay`],
  },
  python3: {
    name: 'python3',
    command: 'python3',
    args: (link, port) => ['-c', PYTHON_BRIDGE, link, String(port)],
  },
};

/** The bridge this machine can run, or why there is none. */
export function ptyBridge(env: NodeJS.ProcessEnv = process.env): PtyBridge | { missing: string } {
  const asked = env.JUMPERLESS_PTY_BRIDGE;
  if (asked !== undefined && asked !== '') {
    if (asked !== 'socat' && asked !== 'python3') {
      return { missing: `JUMPERLESS_PTY_BRIDGE=${asked}: use socat or python3` };
    }
    return onPath(asked, env)
      ? BRIDGES[asked]
      : { missing: `JUMPERLESS_PTY_BRIDGE=${asked}, but ${asked} is not on PATH` };
  }
  if (onPath('socat', env)) return BRIDGES.socat;
  if (onPath('python3', env)) return BRIDGES.python3;
  return { missing: 'virtual ptys need socat or python3 on PATH, and neither is there' };
}

function onPath(command: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}
