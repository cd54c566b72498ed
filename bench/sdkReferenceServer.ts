/**
 * The SDK's reference shape of a Streamable HTTP server, for bench/httpAuth.ts to compare with:
 * McpServer + StreamableHTTPServerTransport on node:http, stateful sessions (one server per
 * session, as the SDK examples do), one tool equivalent to our `test_simple_text` fixture (same
 * name, same output schema, same result). No Origin, Host, size or bearer gates: the bare SDK.
 *
 *   npx tsx bench/sdkReferenceServer.ts   -> prints the endpoint URL on stdout
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const TEXT = 'This is a simple text response for testing.';
const transports = new Map<string, NodeStreamableHTTPServerTransport>();

function newServer(): McpServer {
  const server = new McpServer({ name: 'sdk-reference', version: '0' });
  server.registerTool(
    'test_simple_text',
    {
      title: 'test_simple_text',
      description: 'Conformance fixture: returns a fixed text.',
      inputSchema: z.object({}),
      outputSchema: z.object({ text: z.string() }),
    },
    async () => {
      const data = { text: TEXT };
      return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
    },
  );
  return server;
}

async function readJson(req: import('node:http').IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const http = createServer((req, res) => {
  void (async () => {
    const id = req.headers['mcp-session-id'] as string | undefined;
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    let transport = id ? transports.get(id) : undefined;
    if (!transport && isInitializeRequest(body)) {
      const created = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          transports.set(sessionId, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) transports.delete(created.sessionId);
      };
      await newServer().connect(created);
      transport = created;
    }
    if (!transport) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request' } }));
      return;
    }
    await transport.handleRequest(req, res, body);
  })().catch(() => {
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
});

http.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
});
process.on('SIGTERM', () => process.exit(0));
