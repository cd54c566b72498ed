/**
 * The questions the server has put to a person before a hazard (issue 25 items 4-5), each bound
 * to the exact call that asked it (callBinding.ts: caller, tool, arguments). Besides the client's
 * own dialog (elicitation, or a 2026-07-28 `input_required` round), a host that renders the board's
 * MCP App may answer one through a form in the app, which calls the app-only `confirm_answer`.
 *
 * An answer goes to the call that waits for it (a 2025 call holding its request open). When no
 * call waits (the call ended with the question: an `input_required` result, or a host that renders
 * apps and cannot elicit), the answer is kept for that call's retry: the same caller, tool and
 * arguments take it once, before the question expires. An answer counts only for a question the
 * server issued, by its id, from the caller it was asked of, once: nothing in the app can change
 * the board except an answer to a question the server asked.
 */
import { randomUUID } from 'node:crypto';

export type Answer = 'accept' | 'decline';

/** A question as the app is shown it. */
export interface OpenQuestion {
  id: string;
  tool: string;
  question: string;
  /** ISO time after which no answer counts. */
  expires: string;
}

/** What became of an answer: a waiting call took it, or it waits for the call's retry. */
export type Delivery = 'call_goes_on' | 'retry';

export interface AskedQuestion extends OpenQuestion {
  /** Settles with the answer given through `answer` while this call waits; never, if none is. */
  answered: Promise<Answer>;
  /** This call stops waiting, the question stays open for its retry (it became the call's result). */
  detach(): void;
  /** The question is no longer open (its call was answered by the client, canceled or timed out). */
  close(): void;
}

interface Entry extends OpenQuestion {
  caller: string;
  binding: string;
  expiresAt: number;
  /** The calls waiting now (none: the answer is kept for the retry). */
  waiting: Set<(answer: Answer) => void>;
  /** An answer given while no call waited, for the retry to take. */
  answer?: Answer;
}

/**
 * The most questions one caller may have open: a caller that asks and never retries (abandoned
 * 2026-07-28 rounds, a hostile client) cannot grow the table; its oldest question no call waits
 * for makes room.
 */
const MOST_PER_CALLER = 16;

export class OpenQuestions {
  private readonly open = new Map<string, Entry>();

  constructor(private readonly now: () => number = () => Date.now()) {}

  /**
   * Puts `question` to the person for the call `binding` of `caller`, or joins the one still
   * unanswered for that same call (a retry that asks again shows the person one question, not two).
   */
  ask(caller: string, binding: string, tool: string, question: string, ttlMs: number): AskedQuestion {
    this.expire();
    let entry = [...this.open.values()].find(
      (e) => e.caller === caller && e.binding === binding && e.answer === undefined,
    );
    if (!entry) {
      this.makeRoom(caller);
      const expiresAt = this.now() + ttlMs;
      entry = {
        id: randomUUID(),
        tool,
        question,
        caller,
        binding,
        expiresAt,
        expires: new Date(expiresAt).toISOString(),
        waiting: new Set(),
      };
      this.open.set(entry.id, entry);
    }
    const held = entry;
    let wake: (answer: Answer) => void = () => {};
    const answered = new Promise<Answer>((resolve) => {
      wake = resolve;
    });
    held.waiting.add(wake);
    return {
      id: held.id,
      tool: held.tool,
      question: held.question,
      expires: held.expires,
      answered,
      detach: () => held.waiting.delete(wake),
      close: () => {
        held.waiting.delete(wake);
        if (this.open.get(held.id) === held) this.open.delete(held.id);
      },
    };
  }

  /** The caller's unanswered questions (no other caller's: a question names what a call would do). */
  pending(caller: string): OpenQuestion[] {
    this.expire();
    return [...this.open.values()]
      .filter((entry) => entry.caller === caller && entry.answer === undefined)
      .map(({ id, tool, question, expires }) => ({ id, tool, question, expires }));
  }

  /**
   * Answers an open question of this caller's: to the call waiting for it, else kept for its retry.
   * Undefined (and nothing happens) for an id the server did not issue, another caller's question,
   * one answered already, or one that expired.
   */
  answer(id: string, caller: string, answer: Answer): Delivery | undefined {
    this.expire();
    const entry = this.open.get(id);
    if (!entry || entry.caller !== caller || entry.answer !== undefined) return undefined;
    if (entry.waiting.size > 0) {
      this.open.delete(id);
      for (const wake of entry.waiting) wake(answer);
      return 'call_goes_on';
    }
    entry.answer = answer;
    return 'retry';
  }

  /** The answer kept for this very call (caller and binding), taken once; undefined if none. */
  take(caller: string, binding: string): Answer | undefined {
    this.expire();
    for (const [id, entry] of this.open) {
      if (entry.caller === caller && entry.binding === binding && entry.answer !== undefined) {
        this.open.delete(id);
        return entry.answer;
      }
    }
    return undefined;
  }

  private makeRoom(caller: string): void {
    const mine = [...this.open.values()].filter((e) => e.caller === caller);
    if (mine.length < MOST_PER_CALLER) return;
    const oldest = mine.find((e) => e.waiting.size === 0) ?? mine[0];
    if (oldest) this.open.delete(oldest.id);
  }

  private expire(): void {
    const now = this.now();
    for (const [id, entry] of this.open) if (entry.expiresAt <= now) this.open.delete(id);
  }
}
