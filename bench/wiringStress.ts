/**
 * Wiring stress on the virtual board: random bridges, one at a time, until the first one the
 * crossbar cannot route (it is kept in its net with no crosspoints, as on the firmware). Prints how
 * many bridges fit, per firmware release and node mix, over several seeds.
 * Run: npx tsx bench/wiringStress.ts [--seeds N]
 *
 * The bridges are made by the board's own `connect` in its raw REPL, and "routed" is read back the
 * way the tools read it (snapshot.ts path_routed), so the figure is what a user of the board sees.
 */
import type { Duplex } from 'node:stream';
import { FIRMWARE_VERSIONS } from '../src/board/firmware.js';
import { SimBoard } from '../src/sim/index.js';

const seedsArg = process.argv.indexOf('--seeds');
const SEEDS = seedsArg > 0 ? Number(process.argv[seedsArg + 1]) : 20;

const ROWS = Array.from({ length: 60 }, (_, i) => i + 1);
/** Rows plus the Nano header (70-93 without 84) and GPIO 1-8: bridges that need the special chips. */
const MIXED = [
  ...ROWS,
  ...Array.from({ length: 24 }, (_, i) => 70 + i).filter((id) => id !== 84),
  ...Array.from({ length: 8 }, (_, i) => 131 + i),
];

/** The board-side loop: seeded picks, `connect`, then whether the new bridge's path was placed. */
function stressScript(nodes: readonly number[], seed: number): string {
  return `
s = ${seed}
def rnd(n):
    global s
    s = (s * 1103515245 + 12345) & 0x7fffffff
    return (s >> 8) % n
def placed(p):
    c = p['chips']
    for j in range(3):
        if j == 2 and c[2] == -1:
            continue
        if p['x'][j] < 0 or p['y'][j] < 0:
            return False
    return True
N = ${JSON.stringify(nodes)}
nodes_clear()
done = set()
fit = 0
why = 'ran out of pairs'
for _ in range(4000):
    a = N[rnd(len(N))]
    b = N[rnd(len(N))]
    k = (min(a, b), max(a, b))
    if a == b or k in done:
        continue
    done.add(k)
    before = get_num_bridges()
    r = connect(a, b)
    if get_num_bridges() == before:
        why = 'refused: ' + str(r)
        break
    p = get_path_between(a, b)
    if p is None or not placed(p):
        why = 'unroutable %d-%d' % (a, b)
        break
    fit += 1
print(fit, get_num_nets(), why)
`;
}

async function rawRepl(stream: Duplex): Promise<(code: string) => Promise<string>> {
  let pending = '';
  let wake: (() => void) | undefined;
  stream.on('data', (data: Buffer) => {
    pending += data.toString('latin1');
    wake?.();
  });
  const until = async (re: RegExp): Promise<string> => {
    while (!re.test(pending)) await new Promise<void>((r) => (wake = r));
    const all = pending;
    pending = '';
    return all;
  };
  stream.write('\r\x03\x03\x01');
  await until(/raw REPL; CTRL-B to exit\r\n>$/);
  return async (code) => {
    stream.write(`${code}\x04`);
    const reply = await until(/\x04[^\x04]*\x04>$/);
    const [out = '', err = ''] = reply.slice(reply.indexOf('OK') + 2).split('\x04');
    if (err) throw new Error(err);
    return out.trim();
  };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

for (const firmware of FIRMWARE_VERSIONS) {
  const board = await SimBoard.start({ firmware });
  const exec = await rawRepl(board.port('repl'));
  for (const [mix, nodes] of [
    ['rows', ROWS],
    ['rows+nano+gpio', MIXED],
  ] as const) {
    const fits: number[] = [];
    const stops = new Map<string, number>();
    for (let seed = 1; seed <= SEEDS; seed++) {
      const [fit = '0', , ...why] = (await exec(stressScript(nodes, seed))).split(' ');
      fits.push(Number(fit));
      const kind = why
        .join(' ')
        .replace(/ \d+-\d+$/, '')
        .replace(/^refused: .*/, 'refused');
      stops.set(kind, (stops.get(kind) ?? 0) + 1);
    }
    const stopText = [...stops].map(([k, n]) => `${k} ${n}`).join(', ');
    console.log(
      `${firmware.padEnd(9)} ${mix.padEnd(15)} bridges before the first unroutable: min ${Math.min(...fits)}, median ${median(fits)}, max ${Math.max(...fits)} over ${SEEDS} seeds (stopped by: ${stopText})`,
    );
  }
  await board.stop();
}
process.exit(0);
