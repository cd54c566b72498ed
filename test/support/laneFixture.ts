/**
 * What the fast-lane suites share (stdio's fast lane, 2025 HTTP replies, the 2026-07-28 lane, the
 * federation's lean client): one dispatcher with the catalog, the conformance fixtures and a
 * slow_read tool the test holds, and HTTP servers over it for callers with a given grant.
 */
import type { Capability } from '../../src/contract/index.js';
import { createDispatcher, type Dispatcher } from '../../src/dispatch/index.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/app.js';
import { conformanceTools } from '../../src/mcp/conformance.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { catalog } from '../../src/tools/index.js';
import { slowReadTool } from './slowTool.js';

/** The slow_read call in progress: `started` is called when it starts, `release()` ends it. */
export interface SlowCall {
  started: () => void;
  release: () => void;
}

export function laneDispatcher(): { dispatcher: Dispatcher; slow: SlowCall } {
  const slow: SlowCall = { started: () => {}, release: () => {} };
  const dispatcher = createDispatcher({
    tools: [
      ...catalog,
      slowReadTool(
        () =>
          new Promise<void>((done) => {
            slow.release = done;
            slow.started();
          }),
      ),
    ],
    own: { tools: conformanceTools },
  });
  return { dispatcher, slow };
}

/** An HTTP server on port 0 whose every caller is granted `granted`; pushed onto `servers` to close. */
export async function laneServer(
  dispatcher: Dispatcher,
  granted: ReadonlySet<Capability>,
  servers: RunningHttpServer[],
): Promise<RunningHttpServer> {
  const server = await startHttpServer({
    port: 0,
    log: () => {},
    dispatcher,
    createServer: (_, era) =>
      createMcpServer({ dispatcher, caller: () => ({ id: 'http', granted }), perRequest: era === 'modern' }),
  });
  servers.push(server);
  return server;
}

/** The JSON-RPC messages of an SSE body, as sent. */
export const sseData = (text: string): string[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice('data: '.length));

/**
 * The calls every lane must answer as the SDK path does: results of each content kind, a tool
 * failure, an unknown tool, a board call, invalid arguments (each suite adds its own).
 */
export const LANE_CASES: ReadonlyArray<{ name: string; arguments: Record<string, unknown> }> = [
  { name: 'test_simple_text', arguments: {} },
  { name: 'test_image_content', arguments: {} },
  { name: 'test_multiple_content_types', arguments: {} },
  { name: 'test_error_handling', arguments: {} },
  { name: 'no_such_tool', arguments: {} },
  { name: 'power_get', arguments: {} },
  { name: 'dac_set', arguments: { channel: 'DAC9', volts: 'high' } },
];
