/**
 * The tools' JSON Schemas, computed once at build time (`npm run build` writes them next to this
 * module as jsonSchemas.json) rather than from zod at every start, which costs a server tens of
 * ms before its first `tools/list`. Without the file (running from src/ through tsx) they are
 * computed from zod as before. An entry is used only for the tool it was made from: same name,
 * group and description; anything else is computed.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { JsonSchemaObject } from '../contract/index.js';
import type { AnyTool } from './tool.js';

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
  return { ...rest, type: 'object' };
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
  if (known && known.group === tool.group && known.description === tool.description) return known;
  return { input: jsonSchemaOf(tool.input, 'input'), output: jsonSchemaOf(tool.output, 'output') };
}
