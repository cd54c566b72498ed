/**
 * Who may call the HTTP server (DESIGN.md §4 "Trust"): the token store, whether a bearer is
 * required, the anonymous set and the operator allow-list. Bound off loopback, every caller needs
 * a bearer, and the server refuses to start until the store holds an active token.
 */
import { FileTokenStore } from '../auth/fileTokenStore.js';
import { defaultTokenStorePath } from '../auth/storePath.js';
import { type Config, isLoopback } from './config.js';

export interface HttpAccess {
  broker: FileTokenStore;
  requireBearer: boolean;
  allowList: string[];
  anonymous: string[];
}

const CREATE_HINT =
  'create one with `jumperless-mcp tokens create --caps jumperless.read,jumperless.wire --expires 30d` ' +
  '(it prints the token once; clients send it as Authorization: Bearer <token>)';

/**
 * The store is `--tokens`, else the default store the `tokens` command writes to (a missing file
 * is an empty store, so a token created while the server runs works at once).
 */
export async function httpAccess(
  config: Pick<Config, 'tokens' | 'requireToken' | 'anonymousCaps' | 'grant'>,
  host: string,
  env: NodeJS.ProcessEnv = process.env,
  log: (line: string) => void = (line) => process.stderr.write(`jumperless-mcp: ${line}\n`),
): Promise<HttpAccess> {
  const path = config.tokens ?? defaultTokenStorePath(env);
  const broker = new FileTokenStore(path);
  const loopback = isLoopback(host);
  let active: number | undefined;
  try {
    active = (await broker.list()).filter((token) => token.state === 'active').length;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    if (!loopback) throw new Error(`refusing to listen on ${host}: ${why}`);
    log(`${why}; requests with a bearer get 503 until it is fixed`);
  }
  if (!loopback && active === 0) {
    throw new Error(
      `refusing to listen on ${host}: off loopback every caller needs a bearer token, and the token store ${path} has no active token; ${CREATE_HINT}, then start again${config.tokens === undefined ? ' (or pass --tokens <store>)' : ''}`,
    );
  }
  if (config.requireToken && active === 0) {
    log(`--require-token: the token store ${path} has no active token yet; ${CREATE_HINT}`);
  }
  return {
    broker,
    requireBearer: config.requireToken || !loopback,
    allowList: [...config.grant],
    anonymous: [...config.anonymousCaps],
  };
}
