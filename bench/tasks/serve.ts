/**
 * A scenario served over Streamable HTTP for a model trial (`--serve`) and for the test that plays
 * a solution as a trial reaches it: a virtual board with the scenario's parts, its setup made, and a
 * bearer token for the person and for each other person the scenario names.
 *
 * Why tokens: the board's lease is held by a caller, and an HTTP caller without a bearer is its MCP
 * session (2025) or its TCP connection (2026-07-28). A client that opens a new session per call
 * (`mcp.ts`, a script) or loses its connection between calls is another caller each time, so it
 * would be refused by its own lease and could never renew or release it. A token is one caller on
 * every session and connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileTokenStore } from '../../src/auth/index.js';
import { resolveConfig } from '../../src/cli/config.js';
import { runHttp } from '../../src/cli/serve.js';
import { CAPABILITIES } from '../../src/core/capabilities.js';
import { type Bearer, type Connection, mcpConnection } from './connection.js';
import { setUp } from './replay.js';
import type { Scenario } from './scenarios.js';

export interface Served {
  url: string;
  /** The person's token: what the trial agent presents. */
  person: Bearer;
  /** A connection as the person (and, with `as`, as the others), the setup made on it. */
  connection: Connection;
  close(): Promise<void>;
}

/** The other people a scenario's setup and traps call as. */
function othersOf(scenario: Scenario): string[] {
  const steps = [...(scenario.setup ?? []), ...(scenario.traps ?? []).flatMap((t) => t.take)];
  return [...new Set(steps.flatMap((s) => (s.as === undefined ? [] : [s.as])))];
}

export async function serveScenario(scenario: Scenario, port = 0): Promise<Served> {
  const folder = mkdtempSync(join(tmpdir(), 'jumperless-trial-tokens-'));
  const tokens = join(folder, 'tokens.json');
  const store = new FileTokenStore(tokens);
  const mint = async (name: string): Promise<Bearer> => {
    const { token, summary } = await store.create({ capabilities: [...CAPABILITIES], name });
    return { token, holder: `http:token:${summary.id}` };
  };
  const person = await mint('trial');
  const others: Record<string, Bearer> = {};
  for (const name of othersOf(scenario)) others[name] = await mint(name);
  const parts = scenario.parts
    ? fileURLToPath(new URL(`./parts/${scenario.parts}`, import.meta.url))
    : undefined;
  const { app, http } = await runHttp(
    // Anonymous callers keep every capability too, so `--check` from another process can read.
    resolveConfig({ sim: parts ?? true, http: `127.0.0.1:${port}`, anonymousCaps: '*', tokens }, {}),
  );
  const connection = await mcpConnection(http.url, { person, others }, scenario.appAnswer);
  const close = async () => {
    await connection.close();
    await http.close();
    await app.close();
    rmSync(folder, { recursive: true, force: true });
  };
  const problems = await setUp(connection, scenario);
  if (problems.length > 0) {
    await close();
    throw new Error(problems.join('; '));
  }
  return { url: http.url, person, connection, close };
}
