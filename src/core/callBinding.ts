/**
 * What an answer given for one call is bound to: the tool, its arguments and who calls. A signed
 * 2026-07-28 `requestState` (mcp/inputRounds.ts) and a person's yes given in the board app
 * (questions.ts) each count for that exact call only: not for another tool, other arguments or
 * another caller (issue 23 item 8, issue 25 item 5). A hash: neither needs the arguments back, and
 * a state travels through the client, so the arguments are not put in it.
 */
import { createHash } from 'node:crypto';

export function callBinding(tool: string, args: unknown, caller: string): string {
  return createHash('sha256')
    .update(JSON.stringify([tool, canonical(args ?? {}), caller]))
    .digest('base64url');
}

/** Objects with their keys sorted, so the same arguments hash the same whatever their order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
