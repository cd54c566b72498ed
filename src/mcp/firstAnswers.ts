/**
 * A stdio client's first two requests, answered before the server has loaded. Every MCP client
 * starts with `initialize` and then `tools/list`, and the answers to both depend only on the build
 * (not on the board, which is opened after them anyway), so the build records them
 * (recordFirstAnswers.ts) and a process started with a default catalog answers them from that file
 * while the SDK, the catalog and the board load: the client lists our tools about as soon as Node
 * has started.
 *
 * Nothing is answered twice or lost: every byte of stdin also goes to the real server, in order,
 * once it has loaded; it answers the same two requests again and those replies are dropped, after
 * a comparison. A build whose recorded list differs from its server's (a dist rebuilt by tsc
 * alone) is corrected at once: the client is told `notifications/tools/list_changed` and lists
 * again. Imports only node builtins and a JSON test: this runs before anything else is loaded.
 */
import { existsSync, readFileSync } from 'node:fs';
import { PassThrough, type Readable, Writable } from 'node:stream';
import { isRecord } from '../contract/json.js';

/** What the build recorded: whole JSON-RPC responses, as the server wrote them. */
export interface FirstAnswers {
  /** The `initialize` response for each protocol version a client may ask for. */
  initialize: Record<string, Record<string, unknown>>;
  /** The `tools/list` response of the default catalog, to the operator. */
  toolsList: Record<string, unknown>;
}

export interface FirstAnswering {
  /** Resolves when the server should load now (see answerFirst). */
  readonly ready: Promise<void>;
  /** stdin, every byte, for the server. */
  readonly input: Readable;
  /** stdout, for the server: its replies to what was answered here are dropped. */
  readonly output: Writable;
}

/** The recorded file, next to this module in dist/ (absent when run from src/). */
export const FIRST_ANSWERS_FILE = 'firstAnswers.json';

/**
 * Flags that leave the catalog as recorded: any other (toolsets, list modes, voltage limits, a
 * federation, HTTP, the conformance fixtures, a subcommand) makes a different first answer.
 */
const NEUTRAL_FLAGS = new Set(['--sim', '--device', '--audit', '--socket']);
/** Flags of NEUTRAL_FLAGS that take a value (`--sim` may). */
const VALUED_FLAGS = new Set(['--device', '--audit']);
/** Environment variables of the same kind; every other `JUMPERLESS_MCP_*` one opts out. */
const NEUTRAL_ENV = new Set([
  'JUMPERLESS_MCP_DEVICE',
  'JUMPERLESS_MCP_AUDIT',
  'JUMPERLESS_MCP_SOCKET',
  'JUMPERLESS_MCP_STATE_KEY',
  'JUMPERLESS_MCP_FIRST_ANSWERS',
]);

/** Whether a process started with these arguments serves stdio with the recorded catalog. */
export function servesRecordedCatalog(args: readonly string[], env: NodeJS.ProcessEnv): boolean {
  for (const name of Object.keys(env)) {
    if (name.startsWith('JUMPERLESS_MCP_') && !NEUTRAL_ENV.has(name)) return false;
  }
  for (let at = 0; at < args.length; at++) {
    const arg = args[at] as string;
    const flag = arg.split('=')[0] as string;
    if (!NEUTRAL_FLAGS.has(flag)) return false;
    if (arg.includes('=')) continue;
    const next = args[at + 1];
    if (
      VALUED_FLAGS.has(flag) ||
      ((flag === '--sim' || flag === '--socket') && next && !next.startsWith('-'))
    ) {
      if (next === undefined) return false;
      at++;
    }
  }
  return true;
}

/**
 * Starts answering when this process serves stdio with the recorded catalog and the build has
 * the file; else undefined. `JUMPERLESS_MCP_FIRST_ANSWERS=off` turns it off, a path names
 * another file.
 */
export function answerFirst(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  streams: { input: Readable; output: Writable } = { input: process.stdin, output: process.stdout },
): FirstAnswering | undefined {
  const choice = env.JUMPERLESS_MCP_FIRST_ANSWERS;
  if (choice === 'off' || !servesRecordedCatalog(args, env) || namesMissingDevice(args, env))
    return undefined;
  const answers = readAnswers(choice ? choice : new URL(FIRST_ANSWERS_FILE, import.meta.url));
  return answers ? startAnswering(answers, streams.input, streams.output) : undefined;
}

/**
 * A serial path that does not exist stops the server at once with one line (cli/app.ts): a client
 * must see that, not an answered initialize and then a closed pipe.
 */
function namesMissingDevice(args: readonly string[], env: NodeJS.ProcessEnv): boolean {
  let device = env.JUMPERLESS_MCP_DEVICE;
  for (let at = 0; at < args.length; at++) {
    const arg = args[at] as string;
    if (arg === '--device') device = args[at + 1];
    else if (arg.startsWith('--device=')) device = arg.slice('--device='.length);
  }
  return device?.startsWith('/') === true && !existsSync(device);
}

function readAnswers(file: string | URL): FirstAnswers | undefined {
  try {
    const answers = JSON.parse(readFileSync(file, 'utf8')) as FirstAnswers;
    return isRecord(answers.initialize) && isRecord(answers.toolsList) ? answers : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How long loading the server waits for the client's next request. A client sends it at once, and
 * one that sends nothing waits for nothing; but once loading has begun, a request waits for all of it.
 */
const FIRST_REQUEST_MS = 100;
const NEXT_REQUEST_MS = 250;
/**
 * How long the server's replies are watched for the ones answered here. A reply that never comes
 * (the client cancelled its list) would otherwise keep every later write parsed.
 */
const WATCH_REPLIES_MS = 60_000;

type Id = string | number;

export function startAnswering(answers: FirstAnswers, source: Readable, sink: Writable): FirstAnswering {
  const input = new PassThrough();
  /** What was answered here, by id: the text sent, and whether it was the list. */
  const answered = new Map<Id, { text: string; list: boolean }>();
  let phase: 'initialize' | 'list' | 'done' = 'initialize';
  let pending = '';
  let load!: () => void;
  const ready = new Promise<void>((resolve) => {
    load = resolve;
  });
  let timer: NodeJS.Timeout | undefined;
  const wait = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(finish, ms);
    timer.unref();
  };
  const finish = () => {
    if (phase === 'done') return;
    phase = 'done';
    clearTimeout(timer);
    source.off('data', watch);
    setTimeout(() => answered.clear(), WATCH_REPLIES_MS).unref();
    load();
  };
  const send = (id: Id, recorded: Record<string, unknown>, list: boolean) => {
    const text = JSON.stringify({ ...recorded, id });
    answered.set(id, { text, list });
    sink.write(`${text}\n`);
  };
  /** The one request this phase can answer, or false: then the server answers everything. */
  const take = (line: string): boolean => {
    if (line.trim() === '') return true;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return false;
    }
    if (!isRecord(message) || message.jsonrpc !== '2.0') return false;
    const { id, method, params } = message;
    if (phase === 'list' && method === 'notifications/initialized' && id === undefined) return true;
    if (typeof id !== 'string' && typeof id !== 'number') return false;
    if (phase === 'initialize' && method === 'initialize' && isRecord(params)) {
      const version = params.protocolVersion;
      const recorded = typeof version === 'string' ? answers.initialize[version] : undefined;
      if (!recorded || !isRecord(params.capabilities) || !isImplementation(params.clientInfo)) return false;
      send(id, recorded, false);
      // A client asking for experimental features may get another list (discovery mode).
      if ('experimental' in params.capabilities) return false;
      phase = 'list';
      wait(NEXT_REQUEST_MS);
      return true;
    }
    if (phase === 'list' && method === 'tools/list' && !answered.has(id) && listsAll(params)) {
      send(id, answers.toolsList, true);
      finish();
      return true;
    }
    return false;
  };
  const watch = (chunk: Buffer | string) => {
    pending += chunk.toString();
    for (let at = pending.indexOf('\n'); at >= 0 && phase !== 'done'; at = pending.indexOf('\n')) {
      const line = pending.slice(0, at).replace(/\r$/, '');
      pending = pending.slice(at + 1);
      if (!take(line)) finish();
    }
  };
  source.on('data', watch);
  source.on('data', (chunk: Buffer | string) => input.write(chunk));
  source.once('end', () => {
    finish();
    input.end();
  });
  wait(FIRST_REQUEST_MS);
  return { ready, input, output: replies(sink, answered) };
}

/** The server's stdout: its replies to what was answered here are compared, then dropped. */
function replies(sink: Writable, answered: Map<Id, { text: string; list: boolean }>): Writable {
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const text = chunk.toString();
      if (answered.size === 0) {
        sink.write(text, done);
        return;
      }
      const kept = text
        .split('\n')
        .filter((line) => line === '' || !isAnsweredReply(line, answered, sink))
        .join('\n');
      if (kept.trim() === '') done();
      else sink.write(kept, done);
    },
  });
  sink.on('error', (error) => output.destroy(error));
  return output;
}

function isAnsweredReply(line: string, answered: Map<Id, { text: string; list: boolean }>, sink: Writable) {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return false;
  }
  if (!isRecord(message) || 'method' in message) return false;
  const id = message.id as Id;
  const first = answered.get(id);
  if (!first) return false;
  answered.delete(id);
  if (line !== first.text) {
    process.stderr.write(
      `jumperless-mcp: the recorded ${first.list ? 'tools/list' : 'initialize'} answer differs from this server's (rebuild with npm run build)${first.list ? '; the client is told to list again' : ''}\n`,
    );
    if (first.list)
      sink.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n`);
  }
  return true;
}

/** A `tools/list` of the first page, asking for nothing but what `_meta` may carry. */
function listsAll(params: unknown): boolean {
  if (params === undefined) return true;
  return isRecord(params) && Object.keys(params).every((key) => key === '_meta');
}

function isImplementation(value: unknown): boolean {
  return isRecord(value) && typeof value.name === 'string' && typeof value.version === 'string';
}
