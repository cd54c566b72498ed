/**
 * What the command line means before commander reads it: the board a command works on, the
 * shapes of a command line commander would misread, and the nearest command to a mistyped one.
 */
import type { Flags } from './config.js';
import { UsageError } from './usageError.js';

/** A board command's own choice of board. */
export interface BoardOptions {
  device?: string;
  sim?: boolean;
}

/**
 * The board a command works on: its own `--device` or `--sim`, else the `--device` or
 * `--sim [parts.json]` given before the command (as for the server), else
 * `$JUMPERLESS_MCP_DEVICE`, else `auto`.
 */
export function boardOf(own: BoardOptions, before: Flags, env: NodeJS.ProcessEnv): string {
  if (own.device !== undefined && own.sim) {
    throw new UsageError('give --device or --sim, not both (--sim is --device sim)');
  }
  if (own.device !== undefined) return own.device;
  if (own.sim) return 'sim';
  if (before.sim !== undefined && before.sim !== false) {
    return before.sim === true ? 'sim' : `sim:${before.sim}`;
  }
  if (before.device !== undefined) return before.device;
  const fromEnv = env.JUMPERLESS_MCP_DEVICE;
  return fromEnv === undefined || fromEnv === '' ? 'auto' : fromEnv;
}

/**
 * Rewrites the two shapes commander would misread: `--sim COMMAND ...` becomes
 * `--device sim COMMAND ...` (the server's `--sim` takes an optional parts file, and would take
 * the command's name for one), and `help call TOOL` becomes `call TOOL --help` (which lists the
 * tool's arguments; commander's help would drop TOOL).
 */
export function rewriteArgv(argv: readonly string[], commands: readonly string[]): string[] {
  const out = [...argv];
  const sim = out.indexOf('--sim');
  const next = out[sim + 1];
  if (sim >= 0 && next !== undefined && commands.includes(next) && !out.slice(0, sim).some(isCommand)) {
    out.splice(sim, 1, '--device', 'sim');
  }
  const help = out.findIndex((word) => !word.startsWith('-'));
  if (out[help] === 'help' && out[help + 1] === 'call' && out[help + 2] !== undefined) {
    out.splice(help, 3, 'call', out[help + 2] as string, '--help');
  }
  return out;

  function isCommand(word: string): boolean {
    return commands.includes(word);
  }
}

/** `unknown command 'exce' (did you mean exec?)`, or the list of commands when nothing is near. */
export function unknownCommand(word: string, commands: readonly string[]): UsageError {
  const near = commands
    .map((command) => ({ command, distance: editDistance(word, command) }))
    .filter(({ command, distance }) => distance <= Math.max(1, Math.floor(command.length / 3)))
    .sort((a, b) => a.distance - b.distance)
    .map(({ command }) => command);
  const hint =
    near.length > 0
      ? `did you mean ${near.slice(0, 2).join(' or ')}?`
      : `the commands are ${commands.join(', ')}; jumperless-mcp help shows them`;
  return new UsageError(`unknown command '${word}' (${hint})`);
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}
