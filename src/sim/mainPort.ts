/**
 * CDC0, the main port (spec §2): the firmware's line-buffered menu interface. Only the commands a
 * driver uses are simulated (`?`, ENQ, `>code`, `J`, `Q`, `x`, `+`, `-`, `n`, `m`); anything else
 * prints the menu, as an unknown character does on the board.
 */
import type { FirmwareFunctions, Json } from './firmware/types.js';

const PORT_LIST = 'CDC0: Jumperless Main\nCDC1: JL Passthrough\nCDC2: JL Micropython\nCDC3: Jumperless TUI\n';
const SO = 0x0e;
const MENU = `

\t\tMenu

\t'help' for docs or [command]?

\tm = show this menu
\te = show extra options (0)
\tn = show net list

\t\`/~ = edit / print config
\tp = microPython REPL
\t> = send Python formatted command
\t/ = show filesystem / run script
\tU/u = enable/disable USB Mass Storage

\tx = clear all connections
\t+ = add connections
\t- = remove connections

`;

export interface MainPortIo {
  functions: FirmwareFunctions;
  /** Text out; `\n` becomes `\r\n` on the wire. */
  write(text: string): void;
  writeRaw(data: Uint8Array): void;
  /** Runs a `>` line as file input, its output and traceback going to this port. */
  runPython(code: string): void;
}

export class MainPort {
  private line = '';
  private toldLineBuffering = false;

  constructor(private readonly io: MainPortIo) {}

  feed(data: Uint8Array): void {
    for (const byte of data) this.feedByte(byte);
  }

  private feedByte(byte: number): void {
    if (byte === 0x05) return this.io.write(PORT_LIST);
    if (byte === 0x0e || byte === 0x0f || byte === 0x13) return; // line-buffer control: always on here
    // `?` is intercepted: the firmware version (cmd_showVersion).
    if (byte === 0x3f && this.line === '')
      return this.io.write(`Jumperless firmware version: ${String(this.call('firmware_version'))}\n`);
    if (byte === 0x0d || byte === 0x0a) {
      const command = this.line;
      this.line = '';
      if (command.trim() !== '') {
        this.io.write('\n');
        this.run(command);
      }
      return;
    }
    if (byte === 0x08 || byte === 0x7f) {
      this.line = this.line.slice(0, -1);
      return;
    }
    if (byte < 0x20 || this.line.length >= 1024) return;
    const char = String.fromCharCode(byte);
    this.line += char;
    this.io.write(char);
  }

  private call(name: string, ...args: Json[]): Json | undefined {
    const fn = this.io.functions[name];
    return fn ? fn(...args) : undefined;
  }

  private run(command: string): void {
    const head = command[0] ?? '';
    const rest = command.slice(1).trim();
    try {
      switch (head) {
        case '>':
          return this.io.runPython(command.slice(1));
        case 'J': {
          const state = this.call('get_state');
          return this.io.write(`\n\n${stateSection(String(state ?? '{}'), rest)}\n`);
        }
        case 'Q':
          return this.io.write(`ACTIVE_SLOT:${String(this.call('CURRENT_SLOT') ?? 0)}\n`);
        case 'x':
          this.call('nodes_clear');
          // 5.7.11's `x` takes the placed parts too (partsClearAllRecords).
          this.call('_clear_parts');
          return this.io.write('Cleared all connections\n');
        case '+':
        case '-':
          return this.editBridges(head, rest);
        case 'n':
          this.call('print_nets');
          return;
        default:
          return this.menu();
      }
    } catch (error) {
      this.io.write(`${error instanceof Error ? error.message : String(error)}\n`);
    }
  }

  private editBridges(op: '+' | '-', list: string): void {
    const pairs = list.split(',').map((item) => item.trim());
    if (list === '' || pairs.some((p) => p === '')) return this.io.write('Invalid input\n');
    for (const pair of pairs) {
      const [a, b, extra] = pair.split('-').map((s) => s.trim());
      if (extra !== undefined || a === undefined || a === '') return this.io.write('Invalid input\n');
      if (op === '-' && b === undefined) {
        this.call('disconnect', a, -1);
        continue;
      }
      if (b === undefined || b === '') return this.io.write('Invalid node 2 number\n');
      if (this.call('_resolve_node', a) === null) return this.io.write('Invalid node 1 number\n');
      if (this.call('_resolve_node', b) === null) return this.io.write('Invalid node 2 number\n');
      this.call(op === '+' ? 'connect' : 'disconnect', a, b);
    }
    this.call('print_bridges');
  }

  private menu(): void {
    if (!this.toldLineBuffering) {
      // The firmware pushes its line-buffering mode to the app before the first menu (spec §2.1).
      this.io.writeRaw(Uint8Array.of(SO));
      this.toldLineBuffering = true;
    }
    this.io.write(MENU);
  }
}

/** `J power` prints one section of the state JSON (spec §2.3). */
function stateSection(stateJson: string, section: string): string {
  if (section === '') return stateJson;
  try {
    const value = (JSON.parse(stateJson) as Record<string, unknown>)[section];
    return value === undefined ? stateJson : JSON.stringify({ [section]: value }, null, 2);
  } catch {
    return stateJson;
  }
}
