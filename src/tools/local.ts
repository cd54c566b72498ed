/**
 * A catalog bound to its board, ready to serve: each tool adapted once into what every registry
 * holds (a descriptor with its JSON Schemas, an argument check, a runner that returns the rendered
 * result). Arguments are checked against the zod schema, results against the output schema; the
 * JSON Schemas are derived from zod once per tool.
 */
import { z } from 'zod';
import {
  annotationsFor,
  type CallContext,
  type ContentBlock,
  JSONRPC,
  type JsonSchemaObject,
  RpcError,
  renderResult,
  type ToolDefinition,
  type ToolDescriptor,
  type ToolResult,
} from '../contract/index.js';
import type { AnyTool, ToolEnv } from './tool.js';

const definitions = new WeakMap<AnyTool, ToolDefinition>();

/** A tool as `tools/list` shows it: name, title, description, JSON Schemas, annotations from its kind. */
export function describeTool(tool: AnyTool): ToolDefinition {
  let definition = definitions.get(tool);
  if (!definition) {
    definition = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchemaOf(tool.input, 'input'),
      outputSchema: jsonSchemaOf(tool.output, 'output'),
      annotations: annotationsFor(tool),
    };
    definitions.set(tool, definition);
  }
  return definition;
}

/**
 * JSON Schema of a zod object without `$schema`: 2020-12 is the default dialect of MCP 2025-11-25,
 * and the SDK client's Ajv (draft-07) refuses to compile a schema that names 2020-12.
 */
export function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): JsonSchemaObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  const { properties, ...others } = withoutSafeIntegerBounds(rest) as Record<string, unknown>;
  // A tool without arguments needs no empty `properties`: `{type: object}` says the same.
  const any = properties && typeof properties === 'object' && Object.keys(properties).length > 0;
  return { ...others, ...(any ? { properties } : {}), type: 'object' };
}

/**
 * zod bounds every `.int()` by ±2^53-1, which says nothing a model or client needs and costs 40
 * bytes each time; bounds a tool sets itself stay.
 */
function withoutSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'minimum' && item === Number.MIN_SAFE_INTEGER) continue;
    if (key === 'maximum' && item === Number.MAX_SAFE_INTEGER) continue;
    out[key] = withoutSafeIntegerBounds(item);
  }
  return mergedScalarUnion(out);
}

const STRING_KEYWORDS = new Set(['type', 'minLength', 'maxLength', 'pattern']);
const NUMBER_KEYWORDS = new Set(['type', 'minimum', 'maximum']);

/**
 * `anyOf: [{type: integer, ...}, {type: string, ...}]` (a node: a row or a name) as one schema with
 * `type: [integer, string]`: JSON Schema applies string keywords to strings and number keywords to
 * numbers only, so it accepts exactly the same values in a third of the bytes.
 */
function mergedScalarUnion(schema: Record<string, unknown>): Record<string, unknown> {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2) return schema;
  const [numeric, text] = branches as Array<Record<string, unknown>>;
  const fits = (branch: Record<string, unknown> | undefined, keywords: Set<string>) =>
    branch !== undefined && Object.keys(branch).every((key) => keywords.has(key));
  if (!(numeric?.type === 'integer' || numeric?.type === 'number') || text?.type !== 'string') return schema;
  if (!fits(numeric, NUMBER_KEYWORDS) || !fits(text, STRING_KEYWORDS)) return schema;
  const { anyOf: _branches, ...rest } = schema;
  return { ...rest, ...numeric, ...text, type: [numeric.type, 'string'] };
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
  /** Runs the tool on arguments that passed `descriptor.parse`; a failure is thrown, not rendered. */
  run(args: unknown, context: CallContext): Promise<ToolResult>;
}

export function localTool(tool: AnyTool, env: ToolEnv): LocalTool {
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
    async run(args, context) {
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

/** A catalog bound to one board: the descriptors in catalog order and a runner by name. */
export interface BoundCatalog {
  readonly descriptors: readonly ToolDescriptor[];
  get(name: string): LocalTool | undefined;
}

export function bindCatalog(tools: readonly AnyTool[], env: ToolEnv): BoundCatalog {
  const byName = new Map<string, LocalTool>();
  for (const tool of tools) {
    const existing = byName.get(tool.name);
    if (existing) {
      throw new Error(`two tools are named "${tool.name}" (groups ${existing.tool.group} and ${tool.group})`);
    }
    byName.set(tool.name, localTool(tool, env));
  }
  const descriptors = [...byName.values()].map((local) => local.descriptor);
  return { descriptors, get: (name) => byName.get(name) };
}
