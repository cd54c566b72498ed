/** An in-process HTTP server on port 0 over a fresh virtual board, as the CLI builds it. */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type App, buildApp } from '../../src/cli/app.js';
import { type Config, DEFAULT_CONFIG } from '../../src/cli/config.js';
import type { Capability } from '../../src/core/capabilities.js';
import { ANONYMOUS_CAPABILITIES } from '../../src/core/capabilities.js';
import type { ServerExtras } from '../../src/core/dispatcher.js';
import { APPS_EXTENSION } from '../../src/core/listTools.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/app.js';
import { APP_MIME_TYPE } from '../../src/tools/viewPage.js';

/** What an anonymous HTTP caller holds by default. */
const ANONYMOUS = new Set(ANONYMOUS_CAPABILITIES);

export const MODERN = '2026-07-28';

export interface HttpFixture {
  app: App;
  http: RunningHttpServer;
  url: string;
  connect(options?: {
    elicitation?: boolean;
    /** A host that renders MCP Apps (declares the `io.modelcontextprotocol/ui` extension). */
    apps?: boolean;
    /** A client pinned to 2026-07-28 (stateless, `server/discover`); default a 2025 session. */
    modern?: boolean;
  }): Promise<{ client: Client; transport: StreamableHTTPClientTransport }>;
  close(): Promise<void>;
}

/** `extras`: what the server adds beside the board's (the conformance fixtures). */
export async function startHttpFixture(
  config: Partial<Config> = {},
  granted: ReadonlySet<Capability> = ANONYMOUS,
  extras?: ServerExtras,
): Promise<HttpFixture> {
  const app = await buildApp({ ...DEFAULT_CONFIG, device: 'sim', ...config }, extras ? { extras } : {});
  const http = await startHttpServer({
    port: 0,
    dispatcher: app.dispatcher,
    createServer: (_, era) =>
      app.createServer((sessionId) => ({ id: `http:${sessionId ?? 'stateless'}`, granted }), {
        era,
        perRequest: era === 'modern',
      }),
  });
  const clients: Client[] = [];
  return {
    app,
    http,
    url: http.url,
    async connect(options = {}) {
      const client = new Client(
        { name: 'e2e', version: '0' },
        {
          capabilities: {
            ...(options.elicitation ? { elicitation: {} } : {}),
            ...(options.apps ? { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } } : {}),
          },
          ...(options.modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
        },
      );
      const transport = new StreamableHTTPClientTransport(new URL(http.url));
      await client.connect(transport);
      clients.push(client);
      return { client, transport };
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await http.close();
      await app.close();
    },
  };
}
