/**
 * A lab in one command (issue 26 item 5):
 *
 *   npm run lab:demo [-- --boards 3] [-- --once]
 *
 * Brings up several virtual boards, each on a pseudo-terminal exported by Debian's ser2net over
 * RFC 2217 on loopback (as a lab host exports a real board's REPL port, docs/lab.md), and one
 * gateway (the real CLI, `--config bench.json --http`) federating them as `board-1`, `board-2`...
 * with two bearer tokens. It prints the endpoint and the tokens, then plays the scene: one client
 * holds a lease on board-1 and works it while another reads it, is refused a change, and works
 * board-2. Then it keeps serving until Ctrl-C (`--once`: it stops after the scene).
 *
 * Needs ser2net (`apt-get install ser2net`) and socat or python3 (for the ptys).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { FileTokenStore } from '../src/auth/fileTokenStore.js';
import { SimBoard } from '../src/sim/index.js';
import { PTY_MISSING } from '../test/support/ptyAvailable.js';
import { SER2NET_MISSING, type Ser2net, startSer2net } from '../test/support/ser2net.js';

const ROOT = resolve(import.meta.dirname, '..');

export interface Lab {
  /** The gateway's MCP endpoint. */
  url: string;
  /** Bearer tokens: `holder` may change boards, `reader` may read and set supplies. */
  tokens: { holder: string; reader: string };
  /** Each board's name in the bench and the `rfc2217://` address the gateway opens. */
  boards: { name: string; device: string }[];
  /** Milliseconds from the start to each step being up. */
  upMs: { boards: number; ser2net: number; gateway: number; firstCalls: number };
  stop(): Promise<void>;
}

/** What one client did in the scene, and what the gateway answered. */
export interface SceneStep {
  who: 'holder' | 'reader';
  tool: string;
  arguments: Record<string, unknown>;
  isError: boolean;
  answer: unknown;
}

type Log = (line: string) => void;

/** Why the lab cannot come up on this machine, or undefined when it can. */
export const LAB_MISSING: string | undefined = SER2NET_MISSING ?? PTY_MISSING;

export async function startLab(options: { boards?: number; log?: Log } = {}): Promise<Lab> {
  if (LAB_MISSING) throw new Error(`the lab demo cannot run here: ${LAB_MISSING}`);
  const count = options.boards ?? 3;
  if (!Number.isInteger(count) || count < 1 || count > 8) throw new Error('a lab has 1 to 8 boards');
  const log = options.log ?? (() => {});
  const started = performance.now();
  const since = () => Math.round(performance.now() - started);
  const dir = mkdtempSync(join(tmpdir(), 'jl-lab-demo-'));
  const sims: SimBoard[] = [];
  let ser2net: Ser2net | undefined;
  let gateway: ChildProcess | undefined;
  const stop = async () => {
    if (gateway && gateway.exitCode === null && gateway.signalCode === null) {
      const exited = new Promise((done) => gateway?.once('exit', done));
      gateway.kill('SIGTERM');
      await exited;
    }
    await ser2net?.stop();
    await Promise.all(sims.map((sim) => sim.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // The boards, each on its own pty (what a board's REPL port is on the machine it is plugged into).
    // Settled, not raced: a board that fails to start must not leave the others running unstopped.
    const booted = await Promise.allSettled(
      Array.from({ length: count }, async (_, index) => {
        const sim = await SimBoard.start();
        sims.push(sim);
        return (await sim.servePty(join(dir, `board-${index + 1}`))).repl;
      }),
    );
    const failed = booted.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const ptys = booted.map((result) => (result.status === 'fulfilled' ? result.value : ''));
    const boardsUp = since();
    log(`${count} virtual boards up in ${boardsUp} ms`);

    // ser2net exporting each over RFC 2217, as docs/lab.md configures it (one client, no Nagle, no chardelay).
    ser2net = await startSer2net(
      ptys.map((device) => ({
        protocol: 'rfc2217' as const,
        device,
        nodelay: true,
        options: { kickolduser: false, chardelay: false },
      })),
    );
    const ser2netUp = since();
    const boards = ser2net.ports.map((port, index) => ({
      name: `board-${index + 1}`,
      device: `rfc2217://127.0.0.1:${port}`,
    }));
    log(`ser2net exporting them on ${ser2net.ports.join(', ')} after ${ser2netUp} ms`);

    // The gateway: one bench of those boards behind one HTTP endpoint, callers known by their tokens.
    const benchPath = join(dir, 'bench.json');
    writeFileSync(
      benchPath,
      JSON.stringify(
        { name: 'lab', children: boards.map((board) => ({ ...board, type: 'jumperless' })) },
        null,
        2,
      ),
    );
    const store = new FileTokenStore(join(dir, 'tokens.json'));
    const holder = await store.create({
      name: 'holder',
      capabilities: ['jumperless.read', 'jumperless.wire', 'jumperless.power', 'jumperless.io'],
    });
    const reader = await store.create({
      name: 'reader',
      capabilities: ['jumperless.read', 'jumperless.power'],
    });
    const served = await serveGateway(benchPath, join(dir, 'tokens.json'));
    gateway = served.child;
    const gatewayUp = since();
    log(`gateway serving ${served.url} after ${gatewayUp} ms`);

    // Each board opens at its first call: the lab is up when every board has answered one.
    const client = await connect(served.url, holder.token, 'lab-warmup');
    try {
      await Promise.all(
        boards.map(async (board) => {
          const answer = await client.callTool({ name: `${board.name}_power_get`, arguments: {} });
          if (answer.isError) throw new Error(`${board.name} did not answer: ${textOf(answer)}`);
        }),
      );
    } finally {
      await client.close();
    }
    const firstCalls = since();
    log(`every board answered through the gateway after ${firstCalls} ms`);
    return {
      url: served.url,
      tokens: { holder: holder.token, reader: reader.token },
      boards,
      upMs: { boards: boardsUp, ser2net: ser2netUp, gateway: gatewayUp, firstCalls },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The real CLI federating the bench over HTTP on a free loopback port; resolves with its URL. */
async function serveGateway(
  benchPath: string,
  tokens: string,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      '--config',
      benchPath,
      '--tokens',
      tokens,
      '--require-token',
      '--http',
      '127.0.0.1:0',
    ],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  const url = await new Promise<string>((done, fail) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = `${stderr}${chunk.toString('utf8')}`.slice(-8000);
      const served = /serving (http:\/\/\S+\/mcp)/.exec(stderr);
      if (served?.[1]) done(served[1]);
    });
    child.once('exit', (code) => fail(new Error(`the gateway exited (${code}): ${stderr}`)));
  });
  // Keep draining its log so a full pipe never stalls it.
  child.stderr?.resume();
  return { child, url };
}

export async function connect(url: string, token: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

function textOf(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return first?.text ?? '';
}

/** The answer of a call: its structured content, or the refusal's JSON. */
function answerOf(result: { content?: unknown; structuredContent?: unknown; isError?: unknown }): unknown {
  if (result.structuredContent !== undefined && !result.isError) return result.structuredContent;
  const text = textOf(result);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Two clients on the lab: the holder leases board-1 and sets its DAC while the reader reads it,
 * is refused a change (busy, with who holds it and until when), and works board-2; the holder
 * releases it and the reader's change goes through.
 */
export async function leaseScene(lab: Lab, log: Log = () => {}): Promise<SceneStep[]> {
  const holder = await connect(lab.url, lab.tokens.holder, 'lab-holder');
  const reader = await connect(lab.url, lab.tokens.reader, 'lab-reader');
  const clients = { holder, reader };
  const steps: SceneStep[] = [];
  const call = async (who: SceneStep['who'], tool: string, args: Record<string, unknown> = {}) => {
    const result = await clients[who].callTool({ name: tool, arguments: args });
    const step = { who, tool, arguments: args, isError: result.isError === true, answer: answerOf(result) };
    steps.push(step);
    log(
      `${who.padEnd(6)} ${tool} ${JSON.stringify(args)} -> ${step.isError ? 'refused ' : ''}${JSON.stringify(step.answer)}`,
    );
    return step;
  };
  try {
    await call('holder', 'board-1_board_lease', { minutes: 5 });
    await call('holder', 'board-1_dac_set', { channel: 'DAC1', volts: 1.5 });
    await call('reader', 'board-1_power_get');
    await call('reader', 'board-1_dac_set', { channel: 'DAC1', volts: 0 });
    await call('reader', 'board-2_dac_set', { channel: 'DAC1', volts: 2.5 });
    await call('holder', 'board-1_dac_set', { channel: 'DAC1', volts: 3.3 });
    await call('reader', 'board-1_power_get');
    await call('holder', 'board-1_board_lease', { minutes: 0 });
    await call('reader', 'board-1_dac_set', { channel: 'DAC1', volts: 0 });
    return steps;
  } finally {
    await holder.close();
    await reader.close();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const boardsAt = args.indexOf('--boards');
  const boards = boardsAt >= 0 ? Number(args[boardsAt + 1]) : 3;
  const once = args.includes('--once');
  if (!Number.isInteger(boards) || boards < 1 || boards > 8) {
    process.stderr.write('lab demo: --boards takes a whole number from 1 to 8\n');
    process.exit(2);
  }
  if (LAB_MISSING) {
    process.stderr.write(`lab demo: cannot run here: ${LAB_MISSING}\n`);
    process.exit(1);
  }
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const lab = await startLab({ boards, log });
  log('');
  log(`The lab is up in ${lab.upMs.firstCalls} ms. MCP endpoint: ${lab.url}`);
  for (const board of lab.boards) log(`  ${board.name}: ${board.device} (ser2net, RFC 2217)`);
  log(`  holder token (read, wire, power, io): ${lab.tokens.holder}`);
  log(`  reader token (read, power):           ${lab.tokens.reader}`);
  log('  clients send Authorization: Bearer <token>; tools are named board-N_<tool>');
  log('');
  await leaseScene(lab, log);
  if (once) {
    await lab.stop();
    return;
  }
  log('');
  log(`Serving ${lab.url} until Ctrl-C.`);
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await lab.stop();
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((error: unknown) => {
    process.stderr.write(`lab demo: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
