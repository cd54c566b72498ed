/**
 * What turns a port of the virtual board into a pseudo-terminal for `serialport`: a few lines of
 * Python's `pty` module when python3 is on PATH, else socat. Python comes first because it sees a
 * program open and close the pty, so it holds the port only meanwhile and keeps the same pty for
 * the next program; socat can wait for the first open (wait-slave) but ends at the close, and its
 * next pty appears a moment later (a program that reopens at once may miss it).
 * `JUMPERLESS_PTY_BRIDGE` (`socat` or `python3`) picks one; without either, `ptyBridge()` says so
 * in one line.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface PtyBridge {
  readonly name: 'socat' | 'python3';
  readonly command: string;
  /**
   * Arguments that link `link` to a new raw pty, bridged to 127.0.0.1:`port` while a host has the
   * pty open.
   */
  args(link: string, port: number): string[];
}

/**
 * Opens a pty (raw, no echo), links it, and waits for a host to open it; only then does it connect
 * to the port, and it lets go of the port when the host closes the pty (the master hangs up while
 * no process has the slave open), so the port is free for another host meanwhile. The pty and its
 * link stay across a host closing and reopening it. It ends, unlinking the device, when the TCP
 * side ends (the port refused this host, or the cable went) or it is told to stop (SIGTERM).
 */
const PYTHON_BRIDGE = `
import os, pty, select, signal, socket, sys, termios, time, tty
link, port = sys.argv[1], int(sys.argv[2])
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
master, slave = pty.openpty()
tty.setraw(slave)
attrs = termios.tcgetattr(slave)
attrs[3] &= ~termios.ECHO
termios.tcsetattr(slave, termios.TCSANOW, attrs)
tmp = link + ".new"
if os.path.lexists(tmp):
    os.unlink(tmp)
os.symlink(os.ttyname(slave), tmp)
os.replace(tmp, link)
os.close(slave)
hangup = select.poll()
hangup.register(master, select.POLLIN)
def host_has_it():
    return not any(event & select.POLLHUP for _, event in hangup.poll(0))
try:
    while True:
        while not host_has_it():
            time.sleep(0.01)
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                ready, _, _ = select.select([master, sock], [], [])
                if sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        sys.exit(0)
                    os.write(master, data)
                if master in ready:
                    try:
                        data = os.read(master, 65536)
                    except OSError:
                        data = b""
                    if not data:
                        break
                    sock.sendall(data)
        finally:
            sock.close()
finally:
    if os.path.lexists(link):
        os.unlink(link)
`;

const BRIDGES: Record<PtyBridge['name'], PtyBridge> = {
  socat: {
    name: 'socat',
    command: 'socat',
    // wait-slave: connect to the port only once a host opens the pty (checked every 10 ms); socat
    // ends when the host closes it (-t 0: at once, freeing the port), and the exposure makes the
    // next one.
    args: (link, port) => [
      '-t',
      '0',
      `PTY,link=${link},raw,echo=0,wait-slave,pty-interval=0.01`,
      `TCP:127.0.0.1:${port},nodelay`,
    ],
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
  if (onPath('python3', env)) return BRIDGES.python3;
  if (onPath('socat', env)) return BRIDGES.socat;
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
