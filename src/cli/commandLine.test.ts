/** What the command line means before commander reads it (issue 24: the first exec's stumbles). */
import { describe, expect, it } from 'vitest';
import { boardOf, rewriteArgv, unknownCommand } from './commandLine.js';
import { UsageError } from './usageError.js';

const COMMANDS = [
  'start',
  'view',
  'detect',
  'exec',
  'serve',
  'sim',
  'selftest',
  'state',
  'call',
  'tools',
  'help',
];

describe('the board a command works on', () => {
  it('is its own --device or --sim, else the one before the command, else $JUMPERLESS_MCP_DEVICE, else auto', () => {
    const env = { JUMPERLESS_MCP_DEVICE: 'tcp://127.0.0.1:7002' };
    expect(boardOf({ device: '/dev/ttyACM2' }, { device: 'sim' }, env)).toBe('/dev/ttyACM2');
    expect(boardOf({ sim: true }, { device: '/dev/ttyACM0' }, env)).toBe('sim');
    expect(boardOf({}, { device: 'sim' }, env)).toBe('sim');
    expect(boardOf({}, { sim: true }, env)).toBe('sim');
    expect(boardOf({}, { sim: 'parts.json' }, env)).toBe('sim:parts.json');
    expect(boardOf({}, {}, env)).toBe('tcp://127.0.0.1:7002');
    expect(boardOf({}, {}, { JUMPERLESS_MCP_DEVICE: '' })).toBe('auto');
    expect(boardOf({}, {}, {})).toBe('auto');
    expect(() => boardOf({ device: 'auto', sim: true }, {}, {})).toThrow(UsageError);
  });
});

describe('the command line commander would misread', () => {
  it('takes `--sim COMMAND` as the virtual board for that command, not as a parts file named COMMAND', () => {
    expect(rewriteArgv(['--sim', 'exec', 'print(1)'], COMMANDS)).toEqual([
      '--device',
      'sim',
      'exec',
      'print(1)',
    ]);
    // A parts file stays one, and --sim after the command is the command's.
    expect(rewriteArgv(['--sim', 'parts.json', 'exec', 'x'], COMMANDS)).toEqual([
      '--sim',
      'parts.json',
      'exec',
      'x',
    ]);
    expect(rewriteArgv(['exec', '--sim', 'state'], COMMANDS)).toEqual(['exec', '--sim', 'state']);
    expect(rewriteArgv(['--sim'], COMMANDS)).toEqual(['--sim']);
  });

  it('turns `help call TOOL` into `call TOOL --help` (commander would drop TOOL)', () => {
    expect(rewriteArgv(['help', 'call', 'dac_set'], COMMANDS)).toEqual(['call', 'dac_set', '--help']);
    expect(rewriteArgv(['help', 'call'], COMMANDS)).toEqual(['help', 'call']);
    expect(rewriteArgv(['call', 'help', 'call'], COMMANDS)).toEqual(['call', 'help', 'call']);
  });
});

describe('a mistyped command', () => {
  it('is named, with the nearest commands', () => {
    expect(unknownCommand('exce', COMMANDS).message).toBe("unknown command 'exce' (did you mean exec?)");
    expect(unknownCommand('stat', COMMANDS).message).toBe(
      "unknown command 'stat' (did you mean start or state?)",
    );
    expect(unknownCommand('tool', COMMANDS).message).toBe("unknown command 'tool' (did you mean tools?)");
    expect(unknownCommand('flash', COMMANDS).message).toBe(
      `unknown command 'flash' (the commands are ${COMMANDS.join(', ')}; jumperless-mcp help shows them)`,
    );
    expect(unknownCommand('exce', COMMANDS)).toBeInstanceOf(UsageError);
  });
});
