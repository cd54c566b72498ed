import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { FIRMWARE, NEWEST_FIRMWARE } from '../board/firmware.js';
import { PORT_ROLES } from '../sim/exposure.js';
import { SimBoard } from '../sim/index.js';
import { parsePartsFile } from '../sim/parts.js';
import { PORT_NAMES, type PortName } from '../sim/workerProtocol.js';
import { simFirmware } from './simFirmware.js';

export interface SimCommandOptions {
  parts?: string;
  tcp?: string;
  pty?: string;
  fs?: string;
  noiseSeed?: string;
  /** A board with PSRAM: a heap of about 6.2 MB instead of 64 KB (`--psram`). */
  psram?: boolean;
  /** The firmware release it runs (`--firmware`); default the newest. */
  firmware?: string;
}

const FAULT_HELP = `Type a command and Enter to act on the virtual board:
  unplug | replug | reboot | hang on|off | slow <ms per byte> | garbage <port>
  touch <row|pad> | button connect|remove | wheel <clicks> | help | quit
`;

/** `jumperless-mcp sim`: runs the virtual board on its own and says where each port is. */
export async function runSimCommand(options: SimCommandOptions, out: NodeJS.WritableStream): Promise<void> {
  const partsFileText = options.parts ? readFileSync(options.parts, 'utf8') : undefined;
  if (partsFileText !== undefined) {
    const parsed = parsePartsFile(partsFileText);
    if (!parsed.ok) throw new Error(`${options.parts}: ${parsed.errors.join('; ')}`);
  }
  const firmware = options.firmware === undefined ? NEWEST_FIRMWARE : simFirmware(options.firmware);
  const board = await SimBoard.start({
    firmware,
    ...(partsFileText === undefined ? {} : { partsFileText }),
    ...(options.fs ? { fsDir: options.fs } : {}),
    ...(options.noiseSeed ? { noiseSeed: Number(options.noiseSeed) } : {}),
    ...(options.psram ? { psram: true } : {}),
  });
  const tcp = await board.serveTcp({ basePort: options.tcp ? Number(options.tcp) : 0 });
  const pty = options.pty ? await board.servePty(options.pty) : undefined;
  const heap = FIRMWARE[firmware].behaviour.heapBytesNoPsram;
  out.write(
    `Virtual Jumperless V5 (firmware ${firmware}${options.psram ? ', with PSRAM' : `, no PSRAM: ${heap}-byte heap`}) is running.\n`,
  );
  for (const name of PORT_NAMES) {
    const where = [`tcp://127.0.0.1:${tcp[name]}`, pty?.[name]].filter(Boolean).join('  ');
    out.write(`  ${PORT_ROLES[name].padEnd(24)} ${where}\n`);
  }
  out.write(`Try: socat - TCP:127.0.0.1:${tcp.repl}   (then Ctrl-B for the banner)\n${FAULT_HELP}`);
  // One host at a time per port, over TCP or its pty, as on a USB port: say who was turned away.
  board.on('refused', ({ port, refused, holder }) =>
    out.write(`${PORT_ROLES[port]}: refused ${refused}: ${holder} has the port\n`),
  );

  const stop = async () => {
    await board.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    void runFaultCommand(board, line.trim())
      .then((reply) => out.write(`${reply}\n`))
      .catch((error: unknown) =>
        out.write(`error: ${error instanceof Error ? error.message : String(error)}\n`),
      );
  });
  lines.on('close', () => {
    // Without a terminal (stdin at EOF), keep serving until a signal.
  });
}

export async function runFaultCommand(board: SimBoard, line: string): Promise<string> {
  const [verb = '', arg = ''] = line.split(/\s+/);
  switch (verb) {
    case '':
      return '';
    case 'unplug':
      await board.faults.unplug();
      return 'unplugged';
    case 'replug':
      await board.faults.replug();
      return 'plugged in';
    case 'reboot':
      await board.faults.reboot();
      return 'rebooted';
    case 'hang':
      board.faults.hang(arg !== 'off');
      return arg === 'off' ? 'answering again' : 'hung (hang off to recover)';
    case 'slow':
      board.faults.slow(Number(arg) || 0);
      return `output delay ${Number(arg) || 0} ms per byte`;
    case 'garbage': {
      const port = (PORT_NAMES as readonly string[]).includes(arg) ? (arg as PortName) : 'repl';
      board.faults.garbage(port);
      return `sent garbage on ${port}`;
    }
    case 'touch':
      board.inputs.probeTouch(/^\d+$/.test(arg) ? Number(arg) : arg);
      return `probe touched ${arg}`;
    case 'button':
      if (arg !== 'connect' && arg !== 'remove') return 'button connect|remove';
      board.inputs.button(arg);
      return `${arg} button pressed`;
    case 'wheel':
      board.inputs.clickwheelTurn(Number(arg) || 1);
      return `clickwheel turned ${Number(arg) || 1}`;
    case 'quit':
      await board.stop();
      process.exit(0);
      return '';
    default:
      return FAULT_HELP;
  }
}
