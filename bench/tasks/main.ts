/**
 * `npm run bench:tasks`: replays every reference solution on the virtual board and prints, per
 * task, the calls it took and the bytes of JSON they returned, then the medians.
 *
 * `npm run bench:tasks -- --list`: the scenarios and what the person says.
 * `npm run bench:tasks -- --serve <id> [--port N] [--url-file F] [--token-file T]`: serves the virtual board with
 *   that scenario's parts and setup over Streamable HTTP (every capability, exec included, on
 *   loopback, with a bearer token for the trial: serve.ts says why), prints the MCP setup and the
 *   person's words for a model trial (and writes the URL to F, the token to T), and waits; press Enter when the trial is over, and the board is checked against the truth
 *   (the answer is for a judge: the truth is printed beside it). Ctrl-C or SIGTERM stops without
 *   checking; in the background (stdin closed) it serves until then.
 * `npm run bench:tasks -- --check <id> --url <url>`: checks a board another process serves.
 */
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { type Connection, mcpConnection } from './connection.js';
import { median, replay, trapsTaken } from './replay.js';
import { SCENARIOS, type Scenario } from './scenarios.js';
import { serveScenario } from './serve.js';

const out = (line = '') => process.stdout.write(`${line}\n`);
const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};

function scenarioOf(id: string | undefined): Scenario {
  const found = SCENARIOS.find((s) => s.id === id);
  if (!found) {
    throw new Error(`No scenario ${JSON.stringify(id)}: one of ${SCENARIOS.map((s) => s.id).join(', ')}.`);
  }
  return found;
}

async function table(): Promise<number> {
  out(
    `${'task'.padEnd(20)} ${'calls'.padStart(5)} ${'bytes'.padStart(7)} ${'images'.padStart(6)} ${'traps'.padStart(5)}  result`,
  );
  const rows = [];
  for (const scenario of SCENARIOS) {
    const r = await replay(scenario);
    rows.push(r);
    const verdict = r.failures.length === 0 ? 'right' : `WRONG: ${r.failures.join('; ')}`;
    out(
      `${r.id.padEnd(20)} ${String(r.calls).padStart(5)} ${String(r.bytes).padStart(7)} ${String(r.images).padStart(6)} ${`${r.traps.taken.length}/${r.traps.checked}`.padStart(5)}  ${verdict}`,
    );
  }
  const calls = median(rows.map((r) => r.calls));
  const bytes = median(rows.map((r) => r.bytes));
  const right = rows.filter((r) => r.failures.length === 0).length;
  const traps = rows.reduce((sum, r) => sum + r.traps.checked, 0);
  const taken = rows.reduce((sum, r) => sum + r.traps.taken.length, 0);
  out();
  out(`median calls per task: ${calls} (target <= 2)`);
  out(`median result bytes:   ${bytes} (target <= 1024)`);
  out(`right:                 ${right} of ${rows.length}`);
  out(
    `traps taken:           ${taken} of ${traps} checked (traps: taken/checked on the board after each task)`,
  );
  return right === rows.length && calls <= 2 && bytes <= 1024 ? 0 : 1;
}

/** The board check of a scenario, on a connection to the server the trial used. */
async function check(scenario: Scenario, c: Connection): Promise<number> {
  const failures = await scenario.board(c);
  const taken = await trapsTaken(c, scenario);
  out();
  out(`board: ${failures.length === 0 ? 'as the truth says' : `WRONG: ${failures.join('; ')}`}`);
  const checked = scenario.traps?.length ?? 0;
  out(`traps: ${taken.length === 0 ? `none taken (${checked} checked)` : `TAKEN: ${taken.join('; ')}`}`);
  out(`truth, to judge the answer by: ${scenario.truth}`);
  return failures.length === 0 && taken.length === 0 ? 0 : 1;
}

async function serve(scenario: Scenario): Promise<number> {
  const served = await serveScenario(scenario, Number(option('--port') ?? '0'));
  const { url, person } = served;
  const header = `Authorization: Bearer ${person.token}`;
  out(`Scenario ${scenario.id}: a virtual Jumperless V5 is served at ${url}`);
  out();
  out('The trial presents this bearer token: it makes every call one caller (the board lease is');
  out('held by a caller; without a token each MCP session is another one). Its calls hold');
  out(`leases as ${person.holder}.`);
  out('MCP setup (Claude Code):');
  out(`  claude mcp add --transport http jumperless ${url} --header "${header}"`);
  out('MCP setup (JSON clients):');
  out(
    `  {"mcpServers": {"jumperless": {"type": "http", "url": "${url}", "headers": {"Authorization": "Bearer ${person.token}"}}}}`,
  );
  out('The one-call client (bench/tasks/mcp.ts):');
  out(
    `  JUMPERLESS_TRIAL_URL=${url} JUMPERLESS_TRIAL_TOKEN=${person.token}` +
      (scenario.appAnswer ? ` JUMPERLESS_TRIAL_APP_ANSWER=${scenario.appAnswer}` : ''),
  );
  if (scenario.appAnswer) {
    out(`The client renders the board app, where the person answers ${scenario.appAnswer} to every hazard`);
    out('question: the one-call client does it with JUMPERLESS_TRIAL_APP_ANSWER; another client needs a');
    out('host that renders MCP Apps and someone answering in its form.');
  }
  out();
  out('What the person says (give the trial model these words and nothing else):');
  out(`  ${scenario.words}`);
  out();
  out('Press Enter when the trial is over to check the board; Ctrl-C stops without checking.');
  out(
    `Without a terminal (stdin closed): serves until SIGTERM; check with --check ${scenario.id} --url ${url}`,
  );
  const urlFile = option('--url-file');
  if (urlFile) writeFileSync(urlFile, `${url}\n`);
  const tokenFile = option('--token-file');
  if (tokenFile) writeFileSync(tokenFile, `${person.token}\n`, { mode: 0o600 });
  const ended = await new Promise<'line' | 'signal'>((resolve) => {
    const lines = createInterface({ input: process.stdin });
    lines.once('line', () => {
      lines.close();
      resolve('line');
    });
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve('signal'));
  });
  const code = ended === 'line' ? await check(scenario, served.connection) : 0;
  await served.close();
  return code;
}

async function main(): Promise<number> {
  if (args.includes('--list')) {
    for (const s of SCENARIOS) out(`${s.id.padEnd(20)} ${s.exec ? '[exec] ' : ''}${s.words}`);
    return 0;
  }
  const serving = option('--serve');
  if (serving !== undefined) return serve(scenarioOf(serving));
  const checking = option('--check');
  if (checking !== undefined) {
    const url = option('--url');
    if (!url) throw new Error('--check needs --url <the server the trial used>');
    const c = await mcpConnection(url);
    try {
      return await check(scenarioOf(checking), c);
    } finally {
      await c.close();
    }
  }
  return table();
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
