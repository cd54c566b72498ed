/**
 * A tool as clients see it in `tools/list`: name, title, description, JSON Schemas of its input
 * and output, annotations from its kind (STYLE.md §2). Also what the toolsnaps record.
 */
import { z } from 'zod';
import { type AnyTool, annotationsFor, type ToolAnnotations } from '../tools/tool.js';

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchemaObject;
  /** Absent only for federated tools whose child declares none. */
  outputSchema?: JsonSchemaObject;
  annotations: ToolAnnotations;
}

export type JsonSchemaObject = { type: 'object'; [key: string]: unknown };

const cache = new WeakMap<AnyTool, ToolDefinition>();

export function describeTool(tool: AnyTool): ToolDefinition {
  let definition = cache.get(tool);
  if (!definition) {
    definition = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchemaOf(tool.input, 'input'),
      outputSchema: jsonSchemaOf(tool.output, 'output'),
      annotations: annotationsFor(tool),
    };
    cache.set(tool, definition);
  }
  return definition;
}

/** Gives a tool the definition a federated child described, instead of one derived from zod. */
export function presetDefinition(tool: AnyTool, definition: ToolDefinition): void {
  cache.set(tool, definition);
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
  return { ...rest, type: 'object' };
}
