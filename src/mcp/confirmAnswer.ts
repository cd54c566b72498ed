/**
 * `confirm_answer`, the board app's own tool (MCP Apps `_meta.ui.visibility: ["app"]`: the host
 * lets the app call it and shows it to no model). Listed only to a host that renders apps, so a
 * model's tools/list pays no byte for it. Without arguments it lists the caller's open hazard
 * questions (core/questions.ts); with `question` and `answer` it answers one, which counts only for
 * an id the server issued to this caller, once, before it expires. The answer says what became of
 * it: the waiting call goes on, or the same call must be made again (`next: "retry"`).
 */
import { z } from 'zod';
import type { Dispatcher } from '../core/dispatcher.js';
import { answersAs, type Caller } from '../core/runTool.js';

export const CONFIRM_ANSWER_TOOL = 'confirm_answer';

export const confirmAnswerDefinition = {
  name: CONFIRM_ANSWER_TOOL,
  description:
    "The board app's form: lists this caller's open hazard questions, or answers one by its id (yes or no).",
  inputSchema: {
    type: 'object',
    properties: {
      question: { type: 'string', description: 'An open question id' },
      answer: { type: 'string', enum: ['yes', 'no'] },
    },
    additionalProperties: false,
  },
  _meta: { ui: { visibility: ['app'] } },
} as const;

const input = z.strictObject({
  question: z.string().max(100).optional(),
  answer: z.enum(['yes', 'no']).optional(),
});

export function callConfirmAnswer(dispatcher: Dispatcher, caller: Caller, args: unknown) {
  const parsed = input.safeParse(args ?? {});
  const fail = (text: string) => ({ content: [{ type: 'text' as const, text }], isError: true });
  if (!parsed.success) return fail('confirm_answer takes { question, answer: "yes" | "no" } or nothing.');
  const { question, answer } = parsed.data;
  if (question === undefined && answer === undefined) {
    const questions = dispatcher.questions.pending(answersAs(caller));
    return {
      content: [{ type: 'text' as const, text: JSON.stringify({ questions }) }],
      structuredContent: { questions },
    };
  }
  if (question === undefined || answer === undefined)
    return fail('An answer needs both the question id and yes or no.');
  const delivered = dispatcher.questions.answer(
    question,
    answersAs(caller),
    answer === 'yes' ? 'accept' : 'decline',
  );
  if (!delivered) {
    return fail(
      'No open question of yours has that id: it was answered already, expired, or was never asked. Nothing was changed.',
    );
  }
  // `retry`: the call ended with the question, so the model must call it again (the app tells it).
  const result = { answered: question, answer, next: delivered };
  return { content: [{ type: 'text' as const, text: JSON.stringify(result) }], structuredContent: result };
}
