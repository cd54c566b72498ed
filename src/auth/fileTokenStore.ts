/**
 * The file-backed token broker (DESIGN.md §4 Trust). One JSON file holds a SHA-256 per token,
 * never the token. The server reads it (re-reading whenever the file changes, so a `tokens
 * revoke` from the CLI takes effect on the next request); the CLI writes it under a lock file
 * with atomic renames, so the two can run at once.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { normalizeCapabilities } from '../core/capabilities.js';
import { writeFileAtomic } from './atomicWrite.js';
import {
  type BearerIdentity,
  type BearerResolution,
  BrokerInternalError,
  BrokerLookupError,
  type TokenBroker,
} from './broker.js';
import { type FileLockOptions, withFileLock } from './fileLock.js';
import { hashToken, hashTokenHex, looksLikeToken, mintToken, sameHash } from './token.js';
import { parseTokenFile, serializeTokenFile, type TokenRecord } from './tokenFile.js';

export type TokenState = 'active' | 'expired' | 'revoked';

/** What `tokens list` shows: everything but the hash. */
export interface TokenSummary {
  id: string;
  name?: string;
  capabilities: string[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt?: string;
  revokedReason?: string;
  claims?: Record<string, string>;
  state: TokenState;
}

export interface CreateTokenInput {
  capabilities: readonly string[];
  /** Omitted: never expires. */
  expiresAt?: Date;
  name?: string;
  /** Named claims the broker hands on with the caller (`labgrid_place: jumperless-3`). */
  claims?: Record<string, string>;
}

/** A request the store refuses (unknown id, unreadable file); the message says what to do. */
export class TokenStoreError extends Error {
  override readonly name = 'TokenStoreError';
}

export interface FileTokenStoreOptions {
  /** Milliseconds since the epoch; defaults to Date.now. */
  now?: () => number;
  lock?: FileLockOptions;
}

interface Loaded {
  /** Identity of the file version these records came from (ino, mtime, size). */
  signature: string;
  records: TokenRecord[];
  /** Keyed by the hex SHA-256; the value keeps the raw hash for the constant-time check. */
  byHash: Map<string, { record: TokenRecord; hash: Buffer }>;
}

export class FileTokenStore implements TokenBroker {
  private cache: Loaded | undefined;
  private readonly now: () => number;

  constructor(
    readonly path: string,
    private readonly options: FileTokenStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  acceptedTokenFormats(): readonly string[] {
    return ['opaque'];
  }

  async resolveBearer(token: string): Promise<BearerResolution> {
    // Junk never touches the file: hostile callers cost a regex test.
    if (!looksLikeToken(token)) return { ok: false, reason: 'unknown' };
    let loaded: Loaded;
    try {
      loaded = this.load();
    } catch (error) {
      if (error instanceof TokenStoreError) throw new BrokerLookupError(error.message);
      throw new BrokerInternalError(`reading token store ${this.path} failed unexpectedly`);
    }
    const hex = hashTokenHex(token);
    // Looked up by hash, then confirmed with timingSafeEqual. Indexing by the hash (never the
    // token) leaks nothing useful through timing: a caller cannot steer which hash its guess has.
    const entry = loaded.byHash.get(hex);
    const found = entry && sameHash(entry.hash, Buffer.from(hex, 'hex')) ? entry.record : undefined;
    if (!found) return { ok: false, reason: 'unknown' };
    if (found.revokedAt !== undefined) {
      return { ok: false, reason: 'revoked', detail: found.revokedReason ?? 'revoked' };
    }
    if (found.expiresAt !== null && Date.parse(found.expiresAt) <= this.now()) {
      return { ok: false, reason: 'expired', detail: `expired at ${found.expiresAt}` };
    }
    const identity: BearerIdentity = { callerId: `token:${found.id}`, capabilities: found.capabilities };
    if (found.expiresAt !== null) identity.expiresAt = new Date(found.expiresAt);
    if (found.claims) identity.claims = found.claims;
    if (found.name) identity.name = found.name;
    return { ok: true, identity };
  }

  /** Mints a token, stores its hash and returns the token: the only time it is ever visible. */
  async create(input: CreateTokenInput): Promise<{ token: string; summary: TokenSummary }> {
    if (input.expiresAt && input.expiresAt.getTime() <= this.now()) {
      throw new TokenStoreError('the expiry is in the past');
    }
    const token = mintToken();
    const record = await this.update((records) => {
      const ids = new Set(records.map((r) => r.id));
      let id: string;
      do id = `tok_${randomBytes(4).toString('hex')}`;
      while (ids.has(id));
      const created: TokenRecord = {
        id,
        ...(input.name ? { name: input.name } : {}),
        sha256: hashToken(token).toString('hex'),
        capabilities: normalizeCapabilities(input.capabilities),
        createdAt: new Date(this.now()).toISOString(),
        expiresAt: input.expiresAt ? input.expiresAt.toISOString() : null,
        ...(input.claims && Object.keys(input.claims).length > 0 ? { claims: { ...input.claims } } : {}),
      };
      return { records: [...records, created], result: created };
    });
    return { token, summary: this.summarize(record) };
  }

  async list(): Promise<TokenSummary[]> {
    return this.load().records.map((record) => this.summarize(record));
  }

  /** Marks a token revoked. Revoking twice keeps the first time and reason. */
  async revoke(id: string, reason?: string): Promise<TokenSummary> {
    const record = await this.update((records) => {
      const index = records.findIndex((r) => r.id === id);
      const current = records[index];
      if (!current) throw new TokenStoreError(`no token with id ${id} in ${this.path} (see \`tokens list\`)`);
      if (current.revokedAt !== undefined) return { records, result: current };
      const revoked: TokenRecord = {
        ...current,
        revokedAt: new Date(this.now()).toISOString(),
        ...(reason ? { revokedReason: reason } : {}),
      };
      return { records: records.with(index, revoked), result: revoked };
    });
    return this.summarize(record);
  }

  private summarize(record: TokenRecord): TokenSummary {
    const { sha256: _hash, ...rest } = record;
    return { ...rest, state: this.stateOf(record) };
  }

  private stateOf(record: TokenRecord): TokenState {
    if (record.revokedAt !== undefined) return 'revoked';
    if (record.expiresAt !== null && Date.parse(record.expiresAt) <= this.now()) return 'expired';
    return 'active';
  }

  /** Read-modify-write under the lock; a corrupt file is refused, never overwritten. */
  private async update<T>(
    change: (records: TokenRecord[]) => { records: TokenRecord[]; result: T },
  ): Promise<T> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    return withFileLock(
      `${this.path}.lock`,
      async () => {
        this.cache = undefined;
        const { records, result } = change(this.load().records);
        await writeFileAtomic(this.path, serializeTokenFile(records));
        this.cache = undefined;
        return result;
      },
      this.options.lock,
    );
  }

  /**
   * The records, from the cache while the file is unchanged. Sync on purpose: a stat per request
   * costs microseconds, where the async version costs a trip through the thread pool.
   */
  private load(): Loaded {
    let signature: string;
    try {
      signature = fileSignature(statSync(this.path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.emptyStore();
      throw this.readError(error);
    }
    if (this.cache?.signature === signature) return this.cache;
    let text: string;
    let fd: number | undefined;
    try {
      // Stat the open file, not the path: the signature then matches the text we read even if
      // the file is replaced in between.
      fd = openSync(this.path, 'r');
      signature = fileSignature(fstatSync(fd));
      text = readFileSync(fd, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.emptyStore();
      throw this.readError(error);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    const parsed = parseTokenFile(text);
    if (!parsed.ok) {
      this.cache = undefined;
      throw new TokenStoreError(`token store ${this.path} is damaged: ${parsed.message}; fix or remove it`);
    }
    this.cache = {
      signature,
      records: parsed.tokens,
      byHash: new Map(
        parsed.tokens.map((record) => [record.sha256, { record, hash: Buffer.from(record.sha256, 'hex') }]),
      ),
    };
    return this.cache;
  }

  private emptyStore(): Loaded {
    this.cache = undefined;
    return { signature: 'missing', records: [], byHash: new Map() };
  }

  private readError(error: unknown): TokenStoreError {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    return new TokenStoreError(`cannot read token store ${this.path} (${code})`);
  }
}

/** Every write is a rename of a new file, so the inode alone changes; times and size back it up. */
function fileSignature(info: { ino: number; mtimeMs: number; size: number; ctimeMs: number }): string {
  return `${info.ino}:${info.mtimeMs}:${info.ctimeMs}:${info.size}`;
}
