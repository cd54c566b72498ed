/**
 * Conformance fixtures (mcp notes §3.3): the fixed tools, resources and prompts that
 * `@modelcontextprotocol/conformance` server scenarios call, added on top of the production server
 * with `--conformance-fixtures` (off by default). The tools run through the same runTool pipeline
 * and renderer as the board's, so the suite exercises our real path.
 */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { type Prompt, type Resource, type ResourceTemplate, userText } from '../core/resources.js';
import { type AnyTool, defineTool, type HandlerContext } from '../core/toolDefinition.js';

/** A 1x1 PNG. */
const PNG_1PX =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A 10 ms silent mono 8 kHz 8-bit WAV. */
function silentWav(): string {
  const samples = 80;
  const wav = Buffer.alloc(44 + samples, 0x80);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + samples, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(8000, 28);
  wav.writeUInt16LE(1, 32);
  wav.writeUInt16LE(8, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(samples, 40);
  return wav.toString('base64');
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

const empty = z.object({});
const anything = z.object({}).catchall(z.unknown());

const fixture = <I extends z.ZodObject, O extends z.ZodObject>(
  tool: Pick<AnyTool, 'name' | 'description'> & {
    input: I;
    output: O;
    handle(args: z.infer<I>, context: HandlerContext): Promise<z.infer<O>>;
  },
) =>
  defineTool({
    ...tool,
    title: tool.name,
    group: 'conformance',
    kind: 'read',
    capability: 'jumperless.read',
  });

const text = z.object({ text: z.string() });

export const conformanceTools: readonly AnyTool[] = [
  fixture({
    name: 'test_simple_text',
    description: 'Conformance fixture: returns a fixed text.',
    input: empty,
    output: text,
    handle: async () => ({ text: 'This is a simple text response for testing.' }),
  }),
  fixture({
    name: 'test_image_content',
    description: 'Conformance fixture: returns a 1x1 PNG.',
    input: empty,
    output: empty,
    handle: async (_args, context) => {
      context.attach({ type: 'image', mimeType: 'image/png', data: PNG_1PX });
      return {};
    },
  }),
  fixture({
    name: 'test_audio_content',
    description: 'Conformance fixture: returns a short WAV.',
    input: empty,
    output: empty,
    handle: async (_args, context) => {
      context.attach({ type: 'audio', mimeType: 'audio/wav', data: silentWav() });
      return {};
    },
  }),
  fixture({
    name: 'test_embedded_resource',
    description: 'Conformance fixture: returns an embedded text resource.',
    input: empty,
    output: empty,
    handle: async (_args, context) => {
      context.attach({
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      });
      return {};
    },
  }),
  fixture({
    name: 'test_multiple_content_types',
    description: 'Conformance fixture: returns text, an image and a resource.',
    input: empty,
    output: text,
    handle: async (_args, context) => {
      context.attach({ type: 'image', mimeType: 'image/png', data: PNG_1PX });
      context.attach({
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: '{"test":"data","value":123}',
        },
      });
      return { text: 'Multiple content types test:' };
    },
  }),
  fixture({
    name: 'test_tool_with_logging',
    description: 'Conformance fixture: sends three log messages while it runs.',
    input: empty,
    output: text,
    handle: async (_args, context) => {
      const log = (message: string) => context.client?.log('info', message) ?? Promise.resolve();
      await log('Tool execution started');
      await sleep(50, context.signal);
      await log('Tool processing data');
      await sleep(50, context.signal);
      await log('Tool execution completed');
      return { text: 'Logging tool finished' };
    },
  }),
  fixture({
    name: 'test_error_handling',
    description: 'Conformance fixture: always fails.',
    input: empty,
    output: empty,
    handle: async () => {
      throw new ToolError('test_error', 'This tool intentionally returns an error for testing');
    },
  }),
  fixture({
    name: 'test_tool_with_progress',
    description: 'Conformance fixture: reports progress 0, 50 and 100 of 100.',
    input: empty,
    output: text,
    handle: async (_args, context) => {
      context.progress(0, 100);
      await sleep(50, context.signal);
      context.progress(50, 100);
      await sleep(50, context.signal);
      context.progress(100, 100);
      return { text: 'Progress tool finished' };
    },
  }),
  fixture({
    name: 'test_sampling',
    description: 'Conformance fixture: asks the client to sample an answer to a prompt.',
    input: z.object({ prompt: z.string().max(10_000) }),
    output: anything,
    handle: async ({ prompt }, context) => {
      const client = context.client;
      if (!client) throw new ToolError('unsupported', 'Sampling needs an MCP client.');
      return client.sample({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 100,
      });
    },
  }),
  fixture({
    name: 'test_elicitation',
    description: 'Conformance fixture: asks the user for a name and an e-mail address.',
    input: z.object({ message: z.string().max(10_000) }),
    output: anything,
    handle: async ({ message }, context) =>
      elicit(context, {
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: 'User name' },
            email: { type: 'string', description: 'E-mail' },
          },
          required: ['username', 'email'],
        },
      }),
  }),
  fixture({
    name: 'test_elicitation_sep1034_defaults',
    description: 'Conformance fixture: elicitation with default values (SEP-1034).',
    input: empty,
    output: anything,
    handle: async (_args, context) =>
      elicit(context, {
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: {
              type: 'string',
              description: 'User status',
              enum: ['active', 'inactive', 'pending'],
              default: 'active',
            },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
        },
      }),
  }),
  fixture({
    name: 'test_elicitation_sep1330_enums',
    description: 'Conformance fixture: elicitation with the five enum shapes (SEP-1330).',
    input: empty,
    output: anything,
    handle: async (_args, context) =>
      elicit(context, {
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
        },
      }),
  }),
];

async function elicit(
  context: HandlerContext,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const client = context.client;
  if (!client) throw new ToolError('unsupported', 'Elicitation needs an MCP client.');
  return client.elicit(params);
}

export const conformanceResources: readonly Resource[] = [
  {
    uri: 'test://static-text',
    name: 'static-text',
    description: 'Conformance fixture: a fixed text.',
    mimeType: 'text/plain',
    read: async () => ({ text: 'This is the content of the static text resource.' }),
  },
  {
    uri: 'test://static-binary',
    name: 'static-binary',
    description: 'Conformance fixture: a 1x1 PNG.',
    mimeType: 'image/png',
    read: async () => ({ blob: PNG_1PX }),
  },
  {
    uri: 'test://watched-resource',
    name: 'watched-resource',
    description: 'Conformance fixture: a resource to subscribe to.',
    mimeType: 'text/plain',
    read: async () => ({ text: 'Watched resource content' }),
  },
];

export const conformanceTemplates: readonly ResourceTemplate[] = [
  {
    uriTemplate: 'test://template/{id}/data',
    name: 'template',
    description: 'Conformance fixture: data for an id.',
    mimeType: 'application/json',
    read: async (_uri, { id = '' }) => ({
      text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
    }),
  },
];

export const conformancePrompts: readonly Prompt[] = [
  {
    name: 'test_simple_prompt',
    description: 'Conformance fixture: a prompt without arguments.',
    get: () => ({ messages: [userText('This is a simple prompt for testing.')] }),
  },
  {
    name: 'test_prompt_with_arguments',
    description: 'Conformance fixture: a prompt with two arguments.',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    get: ({ arg1, arg2 }) => ({
      messages: [userText(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)],
    }),
    complete: () => [],
  },
  {
    name: 'test_prompt_with_embedded_resource',
    description: 'Conformance fixture: a prompt that embeds a resource.',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    get: ({ resourceUri = '' }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        userText('Please process the embedded resource above.'),
      ],
    }),
  },
  {
    name: 'test_prompt_with_image',
    description: 'Conformance fixture: a prompt with an image.',
    get: () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: PNG_1PX, mimeType: 'image/png' } },
        userText('Please analyze the image above.'),
      ],
    }),
  },
];
