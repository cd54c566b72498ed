/**
 * The tools' JSON Schemas, computed once at build time (`npm run build` writes them next to this
 * module as jsonSchemas.json) rather than from zod at every start, which costs a server tens of
 * ms before its first `tools/list`. Without the file (running from src/ through tsx) they are
 * computed from zod as before. An entry is used only for the tool it was made from: same name,
 * group and description; anything else is computed.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { AnyTool, JsonSchemaObject } from '../core/toolDefinition.js';

export interface ToolSchemas {
  group: string;
  description: string;
  input: JsonSchemaObject;
  output: JsonSchemaObject;
}

/** By tool name. */
export type PrecomputedSchemas = Readonly<Record<string, ToolSchemas>>;

export const SCHEMAS_FILE = 'jsonSchemas.json';

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

/** What the build writes: every tool's schemas, from zod. */
export function precomputeSchemas(tools: readonly AnyTool[]): PrecomputedSchemas {
  return Object.fromEntries(
    tools.map((tool) => [
      tool.name,
      {
        group: tool.group,
        description: tool.description,
        input: jsonSchemaOf(tool.input, 'input'),
        output: jsonSchemaOf(tool.output, 'output'),
      },
    ]),
  );
}

/** The file the build wrote next to this module, or undefined when there is none. */
export function readPrecomputedSchemas(
  file: URL = new URL(`./${SCHEMAS_FILE}`, import.meta.url),
): PrecomputedSchemas | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  return JSON.parse(text) as PrecomputedSchemas;
}

/** The tool's schemas: the precomputed ones when they were made from this very tool, else from zod. */
export function schemasOf(
  tool: AnyTool,
  precomputed: PrecomputedSchemas | undefined,
): { input: JsonSchemaObject; output: JsonSchemaObject } {
  const known = precomputed?.[tool.name];
  // A file older than the tool (built by tsc alone) must not be served: the same fields at least.
  const sameFields = (schema: JsonSchemaObject) =>
    Object.keys(schema.properties ?? {}).join() === Object.keys(tool.input.shape).join();
  if (
    known &&
    known.group === tool.group &&
    known.description === tool.description &&
    sameFields(known.input)
  ) {
    return known;
  }
  return { input: jsonSchemaOf(tool.input, 'input'), output: jsonSchemaOf(tool.output, 'output') };
}
