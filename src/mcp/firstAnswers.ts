/**
 * A stdio client's first two requests, answered before the server has loaded. A 2025 client
 * starts with `initialize` and then `tools/list`, a 2026-07-28 one with `server/discover` and then
 * `tools/list` (the v2 SDK's stdio client discovers on a process of its own, which it then ends, so
 * the process it keeps sees the list first), and the answers depend only on the build (not on the
 * board, which is opened after them anyway), so the build records them (recordFirstAnswers.ts) and
 * a process started with a default catalog answers them from that file while the SDK, the catalog
 * and the board load: the client lists our tools about as soon as Node has started.
 *
 * Nothing is answered twice or lost: every byte of stdin also goes to the real server, in order,
 * once it has loaded; it answers the same requests again and those replies are dropped, after a
 * comparison. A build whose recorded list differs from its server's (a dist rebuilt by tsc alone)
 * is corrected at once for a 2025 client: it is told `notifications/tools/list_changed` and lists
 * again. A 2026-07-28 client cannot be told: the server may send it a list change only on a
 * `subscriptions/listen` stream it asked for, and it keeps a list for the result's cache hint (a
 * minute). Answering it only `server/discover` would gain it nothing (the SDK's kept process opens
 * with the list), so it is answered from the recording only when that is checked to be current
 * first (recordingCurrent.ts: the SDK it was recorded with and, in a checkout, no file of the
 * code newer than the recording); one that still differs is said on stderr. Imports only node
 * builtins and a JSON test: this runs before anything else is loaded.
 */
import { existsSync, readFileSync } from 'node:fs';
import { PassThrough, type Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { isRecord } from '../contract/json.js';
import { plainEnvelopeVersion, plainInitializeParams } from './plainEnvelope.js';
import { recordingIsCurrent } from './recordingCurrent.js';

/** What the build recorded: whole JSON-RPC responses, as the server wrote them. */
export interface FirstAnswers {
  /** The `initialize` response for each protocol version a client may ask for. */
  initialize: Record<string, Record<string, unknown>>;
  /** The `tools/list` response of the default catalog, to the operator. */
  toolsList: Record<string, unknown>;
  /** For each 2026-07-28-or-later protocol version: its `server/discover` and first `tools/list`. */
  modern?: Record<string, ModernAnswers>;
  /** The SDK (server package) version the recording server ran on. */
  sdk?: string;
}

export interface ModernAnswers {
  discover: Record<string, unknown>;
  /** With the cache hint and `_meta` the SDK adds to results of that era. */
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
  const file = choice ? choice : fileURLToPath(new URL(FIRST_ANSWERS_FILE, import.meta.url));
  const answers = readAnswers(file);
  if (!answers) return undefined;
  // The code this module belongs to (dist/, or src/ under tsx) is what answers after the recording.
  const code = fileURLToPath(new URL('..', import.meta.url));
  return startAnswering(answers, streams.input, streams.output, {
    modernCurrent: () => recordingIsCurrent(file, code, answers.sdk),
  });
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

function readAnswers(file: string): FirstAnswers | undefined {
  try {
    const answers = JSON.parse(readFileSync(file, 'utf8')) as FirstAnswers;
    const modern =
      answers.modern === undefined ||
      (isRecord(answers.modern) && Object.values(answers.modern).every(isModernAnswers));
    return isRecord(answers.initialize) && isRecord(answers.toolsList) && modern ? answers : undefined;
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

/** What an answer sent here answered, for the comparison with the server's own. */
type Answered = 'initialize' | 'tools/list' | 'server/discover' | 'modern tools/list';

export interface AnsweringOptions {
  /**
   * Whether the recording may answer a 2026-07-28 client (see the module comment); asked once,
   * when one opens (a 2025 client is corrected instead, and does not pay for the check). Default yes.
   */
  modernCurrent?: () => boolean;
}

export function startAnswering(
  answers: FirstAnswers,
  source: Readable,
  sink: Writable,
  options: AnsweringOptions = {},
): FirstAnswering {
  const input = new PassThrough();
  /** What was answered here, by id: the text sent, and what it answered. */
  const answered = new Map<Id, { text: string; what: Answered }>();
  let phase: 'first' | 'list' | 'done' = 'first';
  /** The 2026-07-28-or-later version a client discovered with; undefined before, or for 2025. */
  let modern: string | undefined;
  /** Asked once, and only of a 2026-07-28 client. */
  let current: boolean | undefined;
  const modernCurrent = () => {
    current ??= options.modernCurrent?.() ?? true;
    return current;
  };
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
  const send = (id: Id, recorded: Record<string, unknown>, what: Answered) => {
    const text = JSON.stringify({ ...recorded, id });
    answered.set(id, { text, what });
    sink.write(`${text}\n`);
  };
  /** 2025: `initialize`, answered unless it asks for what the recording may not hold. */
  const initialize = (id: Id, params: unknown): boolean => {
    if (!isRecord(params)) return false;
    const version = params.protocolVersion;
    const recorded = typeof version === 'string' ? answers.initialize[version] : undefined;
    if (!recorded || !plainInitializeParams(params)) return false;
    send(id, recorded, 'initialize');
    // A client asking for experimental features may get another list (discovery mode).
    if ('experimental' in (params.capabilities as Record<string, unknown>)) return false;
    phase = 'list';
    wait(NEXT_REQUEST_MS);
    return true;
  };
  /** 2026-07-28: `server/discover`, whose answer depends on nothing in the request but its id. */
  const discover = (id: Id, params: unknown): boolean => {
    const version = plainEnvelopeVersion(params);
    const recorded = version === undefined ? undefined : answers.modern?.[version];
    if (!recorded || !modernCurrent()) return false;
    send(id, recorded.discover, 'server/discover');
    modern = version;
    phase = 'list';
    wait(NEXT_REQUEST_MS);
    return true;
  };
  /**
   * 2026-07-28: a `tools/list` of the first page that asks for the plain list, after a discover
   * (claiming its version) or opening the connection: the SDK's stdio client discovers on a
   * process of its own, then starts another for the session, whose first request is the list.
   */
  const modernList = (id: Id, params: unknown): boolean => {
    const version = plainEnvelopeVersion(params);
    if (version === undefined || (modern !== undefined && version !== modern)) return false;
    const recorded = answers.modern?.[version];
    if (!recorded || !modernCurrent()) return false;
    send(id, recorded.toolsList, 'modern tools/list');
    finish();
    return true;
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
    const legacyList = phase === 'list' && modern === undefined;
    if (legacyList && method === 'notifications/initialized' && id === undefined) return true;
    if (typeof id !== 'string' && typeof id !== 'number') return false;
    if (phase === 'first' && method === 'initialize') return initialize(id, params);
    if (phase === 'first' && method === 'server/discover') return discover(id, params);
    if (method !== 'tools/list' || answered.has(id)) return false;
    if (!legacyList) return modernList(id, params);
    if (!listsAll(params)) return false;
    send(id, answers.toolsList, 'tools/list');
    finish();
    return true;
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
function replies(sink: Writable, answered: Map<Id, { text: string; what: Answered }>): Writable {
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

/** What a recording that differs leaves the client with, by what it answered. */
const AFTER_A_DIFFERENCE: Record<Answered, string> = {
  initialize: '',
  'server/discover': '',
  'tools/list': '; the client is told to list again',
  'modern tools/list':
    "; a 2026-07-28 client cannot be told, and keeps that list for the result's cache hint",
};

function isAnsweredReply(line: string, answered: Map<Id, { text: string; what: Answered }>, sink: Writable) {
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
    const what = first.what === 'modern tools/list' ? 'tools/list (2026-07-28)' : first.what;
    process.stderr.write(
      `jumperless-mcp: the recorded ${what} answer differs from this server's (rebuild with npm run build)${AFTER_A_DIFFERENCE[first.what]}\n`,
    );
    if (first.what === 'tools/list')
      sink.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n`);
  }
  return true;
}

/** A 2025 `tools/list` of the first page, asking for nothing but what `_meta` may carry. */
function listsAll(params: unknown): boolean {
  if (params === undefined) return true;
  return isRecord(params) && Object.keys(params).every((key) => key === '_meta');
}

function isModernAnswers(value: unknown): boolean {
  return isRecord(value) && isRecord(value.discover) && isRecord(value.toolsList);
}
