/**
 * Stateful Streamable HTTP sessions (DESIGN.md §4: sampling and elicitation need them): each
 * `initialize` gets its own MCP server and SDK transport. Idle sessions expire and the oldest go
 * first when the cap is reached, since clients often leave without DELETE.
 */
import { randomUUID } from 'node:crypto';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { keepLegacyCodes } from '../mcp/legacyCodes.js';
import type { McpServerHandle } from '../mcp/server.js';

export interface Session {
  id: string;
  transport: NodeStreamableHTTPServerTransport;
  handle: McpServerHandle;
  lastSeen: number;
}

export interface SessionStoreOptions {
  /** Makes the MCP server of a new session. */
  createServer(sessionId: () => string | undefined): McpServerHandle;
  /** Default 64. */
  maxSessions?: number;
  /** Idle time after which a session is closed. Default 30 minutes. */
  idleMs?: number;
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: SessionStoreOptions) {
    const idleMs = options.idleMs ?? 30 * 60_000;
    this.sweeper = setInterval(() => this.sweep(idleMs), Math.min(idleMs, 60_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    const session = this.sessions.get(id);
    if (session) session.lastSeen = Date.now();
    return session;
  }

  /** A new transport and server, connected; the session is stored once initialize succeeds. */
  async open(): Promise<NodeStreamableHTTPServerTransport> {
    let id: string | undefined;
    const handle = this.options.createServer(() => id);
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        id = sessionId;
        this.makeRoom();
        this.sessions.set(sessionId, { id: sessionId, transport, handle, lastSeen: Date.now() });
      },
    });
    transport.onclose = () => {
      if (id !== undefined) this.sessions.delete(id);
    };
    await handle.server.connect(keepLegacyCodes(transport));
    return transport;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((session) => session.handle.close().catch(() => {})));
  }

  private makeRoom(): void {
    const max = this.options.maxSessions ?? 64;
    while (this.sessions.size >= max) {
      const oldest = [...this.sessions.values()].reduce((a, b) => (a.lastSeen <= b.lastSeen ? a : b));
      this.close(oldest);
    }
  }

  private sweep(idleMs: number): void {
    const now = Date.now();
    for (const session of this.sessions.values()) {
      if (now - session.lastSeen > idleMs && session.handle.inFlight === 0) this.close(session);
    }
  }

  private close(session: Session): void {
    this.sessions.delete(session.id);
    void session.handle.close().catch(() => {});
  }
}
