/**
 * The questions the server has put to a person and not yet had answered (issue 25 items 4-5): a
 * hazard's confirmation, open while its call waits. Besides the client's own dialog (elicitation),
 * a host that renders the board's MCP App may answer one through a form in the app, which calls
 * the app-only `confirm_answer` tool. An answer counts only for a question the server issued, by
 * its id, from the caller whose call asked it, once, before it expires: nothing in the app can
 * change the board except an answer to a question the server asked.
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

export interface AskedQuestion {
  id: string;
  /** Settles with the first answer given through `answer`; never, if none is. */
  answered: Promise<Answer>;
  /** The question is no longer open (its call went on, was refused or canceled). */
  close(): void;
}

interface Entry extends OpenQuestion {
  caller: string;
  expiresAt: number;
  settle(answer: Answer): void;
}

export class OpenQuestions {
  private readonly open = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  ask(caller: string, tool: string, question: string, ttlMs: number): AskedQuestion {
    const id = randomUUID();
    let settle: (answer: Answer) => void = () => {};
    const answered = new Promise<Answer>((resolve) => {
      settle = resolve;
    });
    const expiresAt = this.now() + ttlMs;
    this.open.set(id, {
      id,
      tool,
      question,
      caller,
      expiresAt,
      expires: new Date(expiresAt).toISOString(),
      settle,
    });
    return { id, answered, close: () => this.open.delete(id) };
  }

  /** The caller's open questions (no other caller's: a question names what a call would do). */
  pending(caller: string): OpenQuestion[] {
    this.expire();
    return [...this.open.values()]
      .filter((entry) => entry.caller === caller)
      .map(({ id, tool, question, expires }) => ({ id, tool, question, expires }));
  }

  /**
   * Answers an open question of this caller's; false (and nothing happens) for an id the server
   * did not issue, another caller's question, one answered already, or one that expired.
   */
  answer(id: string, caller: string, answer: Answer): boolean {
    this.expire();
    const entry = this.open.get(id);
    if (!entry || entry.caller !== caller) return false;
    this.open.delete(id);
    entry.settle(answer);
    return true;
  }

  private expire(): void {
    const now = this.now();
    for (const [id, entry] of this.open) if (entry.expiresAt <= now) this.open.delete(id);
  }
}
