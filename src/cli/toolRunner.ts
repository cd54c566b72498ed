/**
 * The CLI's way to a tool: the same app a server builds (src/cli/app.ts), the same runTool as MCP
 * (argument check, gate, deadline, audit), with the person at the terminal as the operator (like
 * stdio, within JUMPERLESS_MCP_GRANT, the server's --grant-capability). The board is worked through its owner
 * process when one runs (openServedBoard).
 */
import { capabilitiesIn } from '../core/capabilities.js';
import { createDispatcher } from '../core/dispatcher.js';
import { RpcError, ToolError } from '../core/errors.js';
import type { ToolResult } from '../core/render.js';
import { runTool } from '../core/runTool.js';
import type { AnyTool } from '../core/toolDefinition.js';
import { ToolSubsystem } from '../core/toolSubsystem.js';
import { safetyPolicy } from '../tools/safety.js';
import { type App, buildApp } from './app.js';
import { resolveConfig } from './config.js';

/** A tool's failure as the tool said it, or an RPC refusal (unknown tool, bad arguments, denied). */
export class CliToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly detail: unknown,
  ) {
    super(message);
  }
}

export interface CliApp {
  readonly app: App;
  /** Runs a tool; its structured result, or a CliToolError. */
  call(
    name: string,
    args?: unknown,
    onProgress?: (done: number, total?: number, message?: string) => void,
  ): Promise<Record<string, unknown>>;
  /**
   * Runs a command's own tool, one no client lists (`fs put` of a whole file), on the same board,
   * with the same caller, checks and audit as a catalog tool; its structured result, or a CliToolError.
   */
  run(
    tool: AnyTool,
    args: unknown,
    onProgress?: (done: number, total?: number, message?: string) => void,
  ): Promise<Record<string, unknown>>;
  /** The raw result (for `call`, which prints what a client would see). */
  result(
    name: string,
    args?: unknown,
    onProgress?: (done: number, total?: number, message?: string) => void,
  ): Promise<ToolResult>;
  close(): Promise<void>;
}

export async function openCliApp(device: string, env: NodeJS.ProcessEnv = process.env): Promise<CliApp> {
  // One board, the one asked for: a bench config in the environment is not this command's.
  const config = {
    ...resolveConfig({ device }, { ...env, JUMPERLESS_MCP_CONFIG: '' }),
    federation: undefined,
  };
  const granted = capabilitiesIn(config.grant);
  const app = await buildApp(config, { announceBoard: false, mcp: false });
  const result: CliApp['result'] = (name, args, onProgress) =>
    runTool(app.dispatcher, {
      name,
      arguments: args ?? {},
      caller: { id: 'cli', granted },
      ...(onProgress ? { onProgress } : {}),
    });
  const structured = async (running: Promise<ToolResult>): Promise<Record<string, unknown>> => {
    let answer: ToolResult;
    try {
      answer = await running;
    } catch (error) {
      if (error instanceof RpcError) throw new CliToolError('refused', error.message, error.data);
      throw error;
    }
    if (answer.isError) {
      const failure = failureText(answer);
      throw new CliToolError(failure.code, failure.message, failure);
    }
    return (answer.structuredContent ?? {}) as Record<string, unknown>;
  };
  return {
    app,
    result,
    call: (name, args, onProgress) => structured(result(name, args, onProgress)),
    async run(tool, args, onProgress) {
      // The same board the catalog's tools use (opened now if no call opened it yet), so the
      // command's tool takes its turns with theirs.
      const root = app.dispatcher.root;
      if (!(root instanceof ToolSubsystem))
        throw new Error('a one-shot command serves one board, not a bench');
      const board = await root.board().catch((error: unknown) => {
        if (error instanceof ToolError) throw new CliToolError(error.code, error.message, {});
        throw error;
      });
      const own = createDispatcher({
        root: new ToolSubsystem({
          name: 'command',
          tools: [tool],
          board,
          safety: safetyPolicy({ maxVolts: config.maxVolts, minVolts: config.minVolts }),
        }),
        ...(app.dispatcher.audit ? { audit: app.dispatcher.audit } : {}),
      });
      try {
        return await structured(
          runTool(own, {
            name: tool.name,
            arguments: args,
            caller: { id: 'cli', granted },
            ...(onProgress ? { onProgress } : {}),
          }),
        );
      } finally {
        own.close();
      }
    },
    close: () => app.close(),
  };
}

/** A failed result's `{code, message}` (the text item holds exactly its JSON). */
export function failureText(result: ToolResult): { code: string; message: string } & Record<string, unknown> {
  const first = result.content.find((block) => block.type === 'text');
  const text = first && 'text' in first ? first.text : '';
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    return { ...parsed, code: String(parsed.code ?? 'error'), message: String(parsed.message ?? text) };
  } catch {
    return { code: 'error', message: text };
  }
}

/** The one line a command prints for a failure, and its exit code (2: refused before it ran). */
export function reportFailure(command: string, error: unknown, stderr: NodeJS.WritableStream): number {
  if (error instanceof RpcError) {
    stderr.write(`jumperless-mcp ${command}: ${error.message}\n`);
    return 2;
  }
  if (error instanceof CliToolError) {
    stderr.write(`jumperless-mcp ${command}: ${error.code}: ${error.message}\n`);
    return error.code === 'refused' ? 2 : 1;
  }
  stderr.write(`jumperless-mcp ${command}: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}
