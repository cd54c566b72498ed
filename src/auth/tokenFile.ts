/**
 * The token store's on-disk shape: JSON, one record per token, the SHA-256 of the token and
 * never the token itself. Parsing is strict and total: any file gives records or a message.
 */
import { z } from 'zod';
import { CLAIM_NAME } from './token.js';

const isoDate = z.string().refine((text) => !Number.isNaN(Date.parse(text)), 'not a date');

const tokenRecordSchema = z.object({
  id: z.string().regex(/^tok_[0-9a-f]{8,32}$/, 'ids look like tok_0123abcd'),
  name: z.string().max(200).optional(),
  /** Hex SHA-256 of the whole token string. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a 64-digit hex SHA-256'),
  capabilities: z.array(z.string().min(1)),
  createdAt: isoDate,
  /** null: never expires. */
  expiresAt: isoDate.nullable(),
  revokedAt: isoDate.optional(),
  revokedReason: z.string().max(500).optional(),
  /**
   * What the operator vouches for about the caller, by name: an outside lease the token stands for
   * (`labgrid_place: jumperless-3`), read by `--outside-lease claim:<name>`.
   */
  claims: z.record(z.string().regex(CLAIM_NAME), z.string().min(1).max(200)).optional(),
});

const tokenFileSchema = z.object({
  version: z.literal(1, 'this file was written by another version of jumperless-mcp (expected version 1)'),
  tokens: z.array(tokenRecordSchema),
});

export type TokenRecord = z.infer<typeof tokenRecordSchema>;

export type ParsedTokenFile = { ok: true; tokens: TokenRecord[] } | { ok: false; message: string };

export function parseTokenFile(text: string): ParsedTokenFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // Only the position: V8's message quotes the text, which must not end up in a log or reply.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    return {
      ok: false,
      message: `not valid JSON${position ? ` (${lineAndColumn(text, Number(position))})` : ''}`,
    };
  }
  const parsed = tokenFileSchema.safeParse(json);
  if (!parsed.success) return { ok: false, message: z.prettifyError(parsed.error).replaceAll('\n', '; ') };
  const ids = new Set<string>();
  const hashes = new Set<string>();
  for (const record of parsed.data.tokens) {
    if (ids.has(record.id)) return { ok: false, message: `token id ${record.id} appears twice` };
    if (hashes.has(record.sha256))
      return { ok: false, message: `token ${record.id} has the hash of another token` };
    ids.add(record.id);
    hashes.add(record.sha256);
  }
  return { ok: true, tokens: parsed.data.tokens };
}

export function serializeTokenFile(tokens: readonly TokenRecord[]): string {
  return `${JSON.stringify({ version: 1, tokens }, null, 2)}\n`;
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}
