/**
 * `jumperless-mcp tokens create|list|revoke`: the operator's side of bearer auth (DESIGN.md §4
 * Trust). The token is printed once, on stdout alone so scripts can capture it; every note goes
 * to stderr. Only its SHA-256 is stored.
 */
import { Command } from 'commander';
import type { FileTokenStore, TokenSummary } from '../auth/fileTokenStore.js';
import { CLAIM_NAME } from '../auth/token.js';
import { UsageError } from './usageError.js';

export interface TokensCommandIo {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  now: () => number;
}

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/**
 * `30d`, `12h`, `90m`, `2w`, `45s`; an ISO date or date-time; or `never`. Returns undefined for
 * never. Throws with the accepted forms on anything else.
 */
export function parseExpiry(text: string, now: number): Date | undefined {
  const trimmed = text.trim();
  if (trimmed === 'never') return undefined;
  const relative = /^(\d{1,6})([smhdw])$/.exec(trimmed);
  if (relative) {
    const amount = Number(relative[1]);
    if (amount === 0) throw new UsageError(`--expires ${text}: must be in the future`);
    return new Date(now + amount * UNIT_MS[relative[2] as keyof typeof UNIT_MS]);
  }
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(trimmed)) {
    const date = new Date(trimmed);
    const [year, month, day] = trimmed.slice(0, 10).split('-').map(Number);
    const calendar = new Date(Date.UTC(year ?? 0, (month ?? 0) - 1, day ?? 0));
    // JS rolls 2026-02-30 over to March 2; refuse it instead.
    if (
      Number.isNaN(date.getTime()) ||
      calendar.getUTCMonth() !== (month ?? 0) - 1 ||
      calendar.getUTCDate() !== day
    ) {
      throw new UsageError(`--expires ${text}: not a real date`);
    }
    if (date.getTime() <= now) throw new UsageError(`--expires ${text}: that is in the past`);
    return date;
  }
  throw new UsageError(
    `--expires ${text}: use a duration (45s, 90m, 12h, 30d, 2w), a date (2026-12-31) or never`,
  );
}

export function tokensCommand(io: TokensCommandIo = defaultIo()): Command {
  // The token store is loaded by the tokens commands only, not at every start of the server.
  const storeOf = async (options: { store?: string }): Promise<FileTokenStore> => {
    const [{ FileTokenStore }, { defaultTokenStorePath }] = await Promise.all([
      import('../auth/fileTokenStore.js'),
      import('../auth/storePath.js'),
    ]);
    return new FileTokenStore(options.store ?? defaultTokenStorePath(io.env), { now: io.now });
  };
  const storeHelp =
    'token store file (default: $JUMPERLESS_MCP_TOKENS or ~/.config/jumperless-mcp/tokens.json)';

  const tokens = new Command('tokens').description(
    'create, list and revoke bearer tokens for remote HTTP callers (stored hashed, never in clear)',
  );

  tokens
    .command('create')
    .description('mint a token and print it once')
    .requiredOption(
      '--caps <list>',
      'comma-separated capabilities, e.g. jumperless.read,jumperless.wire (* for all)',
    )
    .option('--expires <when>', 'duration (30d, 12h), date (2026-12-31) or never', '30d')
    .option('--name <name>', 'a label for `tokens list`, e.g. bench-laptop')
    .option(
      '--claim <name=value>',
      'vouch for an outside lease the token stands for, e.g. labgrid_place=jumperless-3 (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--store <path>', storeHelp)
    .action(
      async (options: { caps: string; expires: string; name?: string; claim?: string[]; store?: string }) => {
        const { parseCapabilityList } = await import('../core/capabilities.js');
        const caps = parseCapabilityList(options.caps);
        if (!caps.ok) throw new UsageError(`--caps: ${caps.message}`);
        const expiresAt = parseExpiry(options.expires, io.now());
        const claims = parseClaims(options.claim ?? []);
        const store = await storeOf(options);
        const { token, summary } = await store.create({
          capabilities: caps.capabilities,
          ...(expiresAt ? { expiresAt } : {}),
          ...(options.name ? { name: options.name } : {}),
          ...(claims ? { claims } : {}),
        });
        io.out.write(`${token}\n`);
        io.err.write(
          [
            `Created ${summary.id}${summary.name ? ` (${summary.name})` : ''} in ${store.path}`,
            `  capabilities: ${summary.capabilities.join(', ')}`,
            `  expires:      ${summary.expiresAt ?? 'never'}`,
            ...Object.entries(summary.claims ?? {}).map(
              ([name, value]) => `  claim:        ${name}=${value}`,
            ),
            'This is the only time the token is shown: only its hash is stored, so copy it now.',
            'Clients send it as the header  Authorization: Bearer <token>',
            '',
          ].join('\n'),
        );
      },
    );

  tokens
    .command('list')
    .description('show the tokens in the store (never the tokens themselves)')
    .option('--json', 'print JSON instead of a table')
    .option('--store <path>', storeHelp)
    .action(async (options: { json?: boolean; store?: string }) => {
      const store = await storeOf(options);
      const listed = await store.list();
      if (options.json) {
        io.out.write(`${JSON.stringify(listed, null, 2)}\n`);
        return;
      }
      if (listed.length === 0) {
        io.err.write(`No tokens in ${store.path}. Make one with: jumperless-mcp tokens create --caps ...\n`);
        return;
      }
      io.out.write(formatTable(listed));
    });

  tokens
    .command('revoke')
    .description('revoke a token by id; servers refuse it from their next request')
    .argument('<id>', 'the token id from `tokens list` (tok_...)')
    .option('--reason <text>', 'shown to the client whose token was revoked')
    .option('--store <path>', storeHelp)
    .action(async (id: string, options: { reason?: string; store?: string }) => {
      const store = await storeOf(options);
      const summary = await store.revoke(id, options.reason);
      io.out.write(
        `Revoked ${summary.id} at ${summary.revokedAt}${summary.revokedReason ? ` (${summary.revokedReason})` : ''}\n`,
      );
    });

  return tokens;
}

/** `--claim name=value`, repeatable; a name given twice is a mistake, not a choice. */
function parseClaims(given: readonly string[]): Record<string, string> | undefined {
  if (given.length === 0) return undefined;
  const claims: Record<string, string> = {};
  for (const text of given) {
    const at = text.indexOf('=');
    const name = at < 0 ? text : text.slice(0, at);
    const value = at < 0 ? '' : text.slice(at + 1);
    if (!CLAIM_NAME.test(name))
      throw new UsageError(
        `--claim ${text}: name=value, the name of letters, digits and _ . - (e.g. labgrid_place=jumperless-3)`,
      );
    if (value === '' || value.length > 200)
      throw new UsageError(`--claim ${text}: the value must be 1-200 characters`);
    if (name in claims) throw new UsageError(`--claim ${name} is given twice`);
    claims[name] = value;
  }
  return claims;
}

function formatTable(rows: readonly TokenSummary[]): string {
  const header = ['ID', 'NAME', 'CAPABILITIES', 'CREATED', 'EXPIRES', 'STATE'];
  const cells = rows.map((row) => [
    row.id,
    row.name ?? '-',
    row.capabilities.join(',') || '-',
    minutes(row.createdAt),
    row.expiresAt ? minutes(row.expiresAt) : 'never',
    row.state === 'revoked'
      ? `revoked ${minutes(row.revokedAt ?? '')}${row.revokedReason ? `: ${row.revokedReason}` : ''}`
      : row.state,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((c) => c[column]?.length ?? 0)),
  );
  const line = (values: readonly string[]) =>
    values
      .map((value, column) => (column === values.length - 1 ? value : value.padEnd(widths[column] ?? 0)))
      .join('  ');
  return `${[header, ...cells].map(line).join('\n')}\n`;
}

/** `2026-03-01T12:00:00.000Z` -> `2026-03-01 12:00Z`: enough for a table. */
function minutes(iso: string): string {
  return iso.length >= 16 ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z` : iso;
}

function defaultIo(): TokensCommandIo {
  return { out: process.stdout, err: process.stderr, env: process.env, now: Date.now };
}
