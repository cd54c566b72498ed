/** A JSON Schema for an object, as MCP carries tool inputs and outputs. */
export type JsonSchemaObject = { type: 'object'; [key: string]: unknown };
