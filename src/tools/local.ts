/**
 * A catalog bound to its board, ready to serve: each tool adapted once into what every registry
 * holds (a descriptor with its JSON Schemas, an argument check, a runner that returns the rendered
 * result). Arguments are checked against the zod schema, results against the output schema; the
 * JSON Schemas come from the build (jsonSchemas.ts), or from zod once per tool.
 */
import { z } from 'zod';
import {
  annotationsFor,
  type CallContext,
  type ContentBlock,
  JSONRPC,
  RpcError,
  renderResult,
  type ToolDefinition,
  type ToolDescriptor,
  type ToolResult,
} from '../contract/index.js';
import { readPrecomputedSchemas, schemasOf } from './jsonSchemas.js';
import type { AnyTool, ToolEnv } from './tool.js';

const precomputed = readPrecomputedSchemas();

const definitions = new WeakMap<AnyTool, ToolDefinition>();

/** A tool as `tools/list` shows it: name, title, description, JSON Schemas, annotations from its kind. */
export function describeTool(tool: AnyTool): ToolDefinition {
  let definition = definitions.get(tool);
  if (!definition) {
    const schemas = schemasOf(tool, precomputed);
    definition = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: schemas.input,
      outputSchema: schemas.output,
      annotations: annotationsFor(tool),
    };
    definitions.set(tool, definition);
  }
  return definition;
}

/** Checks arguments against the tool's schema: the parsed value, or -32602 with every issue. */
export function parseArguments(tool: AnyTool, args: unknown): unknown {
  const parsed: z.ZodSafeParseResult<unknown> = tool.input.safeParse(args ?? {});
  if (parsed.success) return withoutNegativeZero(parsed.data);
  throw new RpcError(
    JSONRPC.invalidParams,
    `Invalid arguments for tool ${tool.name}:\n${z.prettifyError(parsed.error)}`,
    {
      tool: tool.name,
      issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
    },
  );
}

/**
 * JSON may carry `-0`, which Python reads as the float `-0.0`: an integer argument of `-0` would make
 * the board raise TypeError. No quantity here has a signed zero, so every `-0` becomes `0`.
 */
function withoutNegativeZero(value: unknown): unknown {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(withoutNegativeZero);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutNegativeZero(item)]));
  }
  return value;
}

export interface LocalTool {
  readonly tool: AnyTool;
  readonly descriptor: ToolDescriptor;
  /**
   * Runs the tool on arguments that passed `descriptor.parse`, with what it acts on now (the open
   * board, the limits); a failure is thrown, not rendered.
   */
  run(args: unknown, context: CallContext, env: ToolEnv): Promise<ToolResult>;
}

export function localTool(tool: AnyTool): LocalTool {
  const definition = describeTool(tool);
  const descriptor: ToolDescriptor = {
    name: tool.name,
    title: definition.title,
    description: definition.description,
    inputSchema: definition.inputSchema,
    ...(definition.outputSchema ? { outputSchema: definition.outputSchema } : {}),
    annotations: definition.annotations,
    hidden: tool.hidden === true,
    group: tool.group,
    capability: tool.capability,
    ...(tool.timeoutMs === undefined ? {} : { timeoutMs: tool.timeoutMs }),
    ...(tool.maxConcurrent === undefined ? {} : { maxConcurrent: tool.maxConcurrent }),
    parse: (args) => parseArguments(tool, args),
  };
  return {
    tool,
    descriptor,
    async run(args, context, env) {
      const extra: ContentBlock[] = [];
      const data = await tool.handle(args, { ...context, attach: (block) => extra.push(block) }, env);
      const output = tool.output.safeParse(data);
      if (!output.success) {
        throw new Error(`result does not match its output schema: ${z.prettifyError(output.error)}`);
      }
      return renderResult(output.data as Record<string, unknown>, extra);
    },
  };
}

/** A catalog: the descriptors in catalog order and a runner by name. */
export interface BoundCatalog {
  readonly descriptors: readonly ToolDescriptor[];
  get(name: string): LocalTool | undefined;
}

export function bindCatalog(tools: readonly AnyTool[]): BoundCatalog {
  const byName = new Map<string, LocalTool>();
  for (const tool of tools) {
    const existing = byName.get(tool.name);
    if (existing) {
      throw new Error(`two tools are named "${tool.name}" (groups ${existing.tool.group} and ${tool.group})`);
    }
    byName.set(tool.name, localTool(tool));
  }
  const descriptors = [...byName.values()].map((local) => local.descriptor);
  return { descriptors, get: (name) => byName.get(name) };
}
