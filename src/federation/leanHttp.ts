/**
 * `tools/call` to an HTTP child that serves MCP 2026-07-28, without the SDK client's per-call
 * machinery (issue 12: one federation hop costs milliseconds, most of it that machinery and
 * `fetch`): one POST with the same envelope and headers the SDK client sends, on a kept-alive
 * node:http connection. The answer is plain JSON, or SSE when the call streams (its progress is
 * passed on). What this cannot finish by itself it hands back untouched (`handBack`): a refusal
 * (any status but 200) before the call ran, or an `input_required` round, which the SDK client
 * then plays from the start as it always did (2026-07-28 calls are re-run each round anyway).
 */
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

export interface LeanEnvelope {
  protocolVersion: string;
  clientInfo: Record<string, unknown>;
  clientCapabilities: Record<string, unknown>;
}

export type LeanOutcome =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'error'; code: number; message: string; data?: unknown }
  | { kind: 'handBack' };

export interface LeanCall {
  tool: string;
  args: unknown;
  envelope: LeanEnvelope;
  signal: AbortSignal;
  progress(progress: number, total?: number, message?: string): void;
}

export class LeanHttp {
  private readonly url: URL;
  private readonly agent: Agent;
  private next = 0;
  /** Calls this client finished itself (not handed back): tests read it to know which way went. */
  answered = 0;

  constructor(
    url: string,
    private readonly bearer?: string,
  ) {
    this.url = new URL(url);
    this.agent = new Agent({ keepAlive: true });
  }

  close(): void {
    this.agent.destroy();
  }

  /** Rejects with the signal's reason when it aborts, and with the socket's error when it fails. */
  call(call: LeanCall): Promise<LeanOutcome> {
    // A name the Mcp-Name header cannot carry as it is goes by the SDK client (node:http would throw).
    if (!/^[A-Za-z0-9_.-]+$/.test(call.tool)) return Promise.resolve({ kind: 'handBack' });
    const id = `lean-${++this.next}`;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: call.tool,
        arguments: call.args ?? {},
        _meta: {
          progressToken: id,
          [PROTOCOL_VERSION]: call.envelope.protocolVersion,
          [CLIENT_INFO]: call.envelope.clientInfo,
          [CLIENT_CAPABILITIES]: call.envelope.clientCapabilities,
        },
      },
    });
    const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<LeanOutcome>((resolve, reject) => {
      const { signal } = call;
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const req = send(this.url, {
        method: 'POST',
        agent: this.url.protocol === 'https:' ? undefined : this.agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          'mcp-protocol-version': call.envelope.protocolVersion,
          'mcp-method': 'tools/call',
          'mcp-name': call.tool,
          ...(this.bearer ? { authorization: `Bearer ${this.bearer}` } : {}),
        },
      });
      const onAbort = () => {
        req.destroy();
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const settle = (outcome: LeanOutcome) => {
        signal.removeEventListener('abort', onAbort);
        if (outcome.kind !== 'handBack') this.answered++;
        resolve(outcome);
      };
      req.on('error', (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      });
      req.on('response', (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          settle({ kind: 'handBack' });
          return;
        }
        readAnswer(res, id, call).then(settle, (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        });
      });
      req.end(body);
    });
  }
}

/**
 * The call's answer from a JSON body or an SSE stream (progress passed on as it comes). Read by
 * events, not `for await`: the async iterator costs more than a small answer's parse.
 */
function readAnswer(res: IncomingMessage, id: string, call: LeanCall): Promise<LeanOutcome> {
  res.setEncoding('utf8');
  const streamed = (res.headers['content-type'] ?? '').startsWith('text/event-stream');
  let text = '';
  let answer: LeanOutcome | undefined;
  const events = () => {
    for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
      const event = text.slice(0, end);
      text = text.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data === '') continue;
      const message = JSON.parse(data) as Record<string, unknown>;
      // Read on to the stream's end (stopping here would destroy the kept-alive socket).
      if (message.id === id && !('method' in message)) {
        answer = outcomeOf(message);
        continue;
      }
      const params = message.params as Record<string, unknown> | undefined;
      if (message.method === 'notifications/progress' && params?.progressToken === id) {
        call.progress(
          params.progress as number,
          params.total as number | undefined,
          params.message as string | undefined,
        );
      }
    }
  };
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) => {
      res.destroy();
      reject(error);
    };
    res.on('data', (chunk: string) => {
      text += chunk;
      if (!streamed) return;
      try {
        events();
      } catch (error) {
        fail(error);
      }
    });
    res.on('error', reject);
    res.on('end', () => {
      try {
        if (answer) resolve(answer);
        else if (streamed) reject(new Error('the stream ended without an answer'));
        else resolve(outcomeOf(JSON.parse(text) as Record<string, unknown>));
      } catch (error) {
        reject(error);
      }
    });
  });
}

function outcomeOf(message: Record<string, unknown>): LeanOutcome {
  const error = message.error as { code: number; message: string; data?: unknown } | undefined;
  if (error) return { kind: 'error', code: error.code, message: error.message, data: error.data };
  const result = (message.result ?? {}) as Record<string, unknown>;
  if (result.resultType !== undefined && result.resultType !== 'complete') return { kind: 'handBack' };
  return { kind: 'result', result };
}
