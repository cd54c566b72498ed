/**
 * Questions to the client in the 2026-07-28 era, where a server cannot send a request of its own:
 * the call answers `input_required` with the question, the client answers and retries the call,
 * and the retried call runs again from the start (basic/patterns/mrtr). A tool asks as it always
 * does (`confirm`, `client.elicit`, `client.sample`): the n-th question of a run is key `q<n>`;
 * an answer the client already gave is handed back at once, and the first unanswered question
 * stops the run (its signal aborts, its clean-up runs) and becomes the result. Earlier answers
 * ride along in a signed `requestState`, since a retry carries only the latest round's answers.
 */
import { randomBytes } from 'node:crypto';
import {
  createRequestStateCodec,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  type RequestStateCodec,
} from '@modelcontextprotocol/server';
import { callBinding } from '../core/callBinding.js';
import { JSONRPC, RpcError } from '../core/errors.js';

/** What a run remembers between rounds. */
export interface RoundState {
  answers: Record<string, unknown>;
  /** The call the answers belong to (roundBinding): a state is good for that call only. */
  call?: string;
}

/**
 * What a requestState is bound to (core/callBinding.ts): the tool, its arguments and the principal.
 * Without it a state minted for one call (a confirmed `ask_user`, say) could be replayed on another
 * tool, other arguments or by another caller, and its answers taken as theirs (issue 23 item 8).
 */
export function roundBinding(tool: string, args: unknown, principal: string | undefined): string {
  return callBinding(tool, args, principal ?? 'anonymous');
}

export type StateCodec = RequestStateCodec<RoundState>;

/**
 * Signs and checks `requestState`. Replicas behind one load balancer need the same key (a retry
 * may reach another replica); one process makes its own when none is given.
 */
function roundStateCodec(key?: Uint8Array): StateCodec {
  return createRequestStateCodec<RoundState>({ key: key ?? randomBytes(32), ttlSeconds: 15 * 60 });
}

/** The env variable holding the key replicas share (64 hex digits); absent, each process has its own. */
export const STATE_KEY_ENV = 'JUMPERLESS_MCP_STATE_KEY';

let shared: StateCodec | undefined;

/** One codec per process, so a retry may reach any server of it (HTTP makes one per request). */
export function sharedRoundStateCodec(): StateCodec {
  if (shared) return shared;
  const hex = process.env[STATE_KEY_ENV];
  shared = roundStateCodec(hex && /^[0-9a-f]{64,}$/i.test(hex) ? Buffer.from(hex, 'hex') : undefined);
  return shared;
}

/** How long a stopped run may take to clean up (ask_user restores the OLED) before we answer. */
const CLEANUP_MS = 5000;

export class InputRounds {
  private readonly answers: Record<string, unknown>;
  private asked = 0;
  private pending: { key: string; question: InputRequest } | undefined;
  private wake: (() => void) | undefined;
  private readonly stopped = new Promise<void>((resolve) => {
    this.wake = resolve;
  });

  constructor(
    private readonly codec: StateCodec,
    previous: RoundState | undefined,
    latest: Record<string, unknown> | undefined,
    private readonly call: string,
  ) {
    if (previous && previous.call !== call) {
      throw new RpcError(
        JSONRPC.invalidParams,
        'requestState belongs to another call (another tool, other arguments or another caller): retry the call it was given for, or call again without requestState and inputResponses',
        { reason: 'request_state_mismatch' },
      );
    }
    this.answers = { ...previous?.answers, ...latest };
  }

  /** The answer to the next question, or (unanswered) a promise that never settles: the run stops. */
  ask(question: InputRequest): Promise<Record<string, unknown>> {
    const key = `q${this.asked++}`;
    const answer = this.answers[key];
    if (answer !== undefined && typeof answer === 'object' && answer !== null) {
      return Promise.resolve(answer as Record<string, unknown>);
    }
    if (!this.pending) {
      this.pending = { key, question };
      this.wake?.();
    }
    return new Promise(() => {});
  }

  /**
   * Runs `work` once; its result, or the `input_required` result of its first unanswered question.
   * `work` stops when `signal` aborts or `until` settles (a question is waiting).
   */
  async run<T>(
    signal: AbortSignal,
    work: (signal: AbortSignal, until: Promise<unknown>) => Promise<T>,
  ): Promise<T | InputRequiredResult> {
    const waiting = this.stopped.then(() => new Error('waiting for the client to answer'));
    const running = work(signal, waiting);
    const first = await Promise.race([running.then((value) => ({ value })), waiting.then(() => undefined)]);
    if (first) return first.value;
    await Promise.race([running.catch(() => undefined), delay(CLEANUP_MS)]);
    const { key, question } = this.pending as { key: string; question: InputRequest };
    return inputRequired({
      inputRequests: { [key]: question },
      requestState: await this.codec.mint({ answers: this.answers, call: this.call }),
    });
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
