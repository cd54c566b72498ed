/**
 * A one-call MCP client for model trials: each command connects to a served scenario as any MCP
 * client does (Streamable HTTP), makes one request, prints what MCP returned as JSON, and exits. A
 * trial agent that works through this script sees the server only as a model would: the tool list,
 * resources, prompts and results, nothing of the source.
 *
 *   npx tsx bench/tasks/mcp.ts <url> tools                   tools/list (every page)
 *   npx tsx bench/tasks/mcp.ts <url> resources               resources/list
 *   npx tsx bench/tasks/mcp.ts <url> templates               resources/templates/list
 *   npx tsx bench/tasks/mcp.ts <url> read <uri>              resources/read
 *   npx tsx bench/tasks/mcp.ts <url> prompts                 prompts/list
 *   npx tsx bench/tasks/mcp.ts <url> prompt <name> ['<json>'] prompts/get
 *   npx tsx bench/tasks/mcp.ts <url> call <tool> ['<json>']  tools/call
 *
 * `<url>` may be left out when JUMPERLESS_TRIAL_URL holds it. JUMPERLESS_TRIAL_TOKEN, the bearer token
 * `--serve` prints, makes every command the same caller (without it each command is a new MCP
 * session, so another caller: one that could never renew or release its own board lease). The result is printed whole, with one
 * exception: a picture's base64 data is written to a PNG file (beside the transcript, or in the
 * system's temporary folder) and its `data` replaced by `<png: N bytes base64, saved to PATH>`, so an
 * agent can open the picture as a picture. When JUMPERLESS_TRIAL_LOG names a file, each command is
 * appended to it as one JSON line (the request, whether the result was an error, the bytes of its
 * text): `--score <log>` then prints the calls and result bytes of a trial. JUMPERLESS_TRIAL_APP_ANSWER
 * (`yes` or `no`): the client renders the board app, where a stand-in for the person answers every
 * hazard question so (a scenario with `appAnswer`; `--serve` prints it).
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { APPS_EXTENSION } from '../../src/core/listTools.js';
import { APP_MIME_TYPE } from '../../src/tools/viewPage.js';

const USAGE = `usage: npx tsx bench/tasks/mcp.ts [<url>] tools|resources|templates|prompts
       npx tsx bench/tasks/mcp.ts [<url>] read <uri>
       npx tsx bench/tasks/mcp.ts [<url>] prompt <name> ['<json arguments>']
       npx tsx bench/tasks/mcp.ts [<url>] call <tool> ['<json arguments>']
       npx tsx bench/tasks/mcp.ts --score <log file>
(<url> may come from JUMPERLESS_TRIAL_URL; JUMPERLESS_TRIAL_TOKEN: the bearer --serve prints;
 JUMPERLESS_TRIAL_LOG appends each command to a log)`;

class UsageError extends Error {}

function jsonArguments(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the arguments are not JSON (${(error as Error).message}): ${text}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`the arguments must be a JSON object, like '{"node": 10}': ${text}`);
  }
  return value as Record<string, unknown>;
}

/** Pictures out of the printed JSON and into files, named by when they came. */
function savePictures(value: unknown, folder: string): unknown {
  if (Array.isArray(value)) return value.map((item) => savePictures(item, folder));
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if (record.type === 'image' && typeof record.data === 'string') {
    mkdirSync(folder, { recursive: true });
    const path = join(folder, `picture-${Date.now()}-${Math.random().toString(36).slice(2, 6)}.png`);
    writeFileSync(path, Buffer.from(record.data, 'base64'));
    return { ...record, data: `<png: ${record.data.length} bytes base64, saved to ${path}>` };
  }
  return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, savePictures(item, folder)]));
}

/** The text a model reads in a tool result (its text blocks), for the byte count. */
function textBytes(result: unknown): number {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.reduce(
    (sum, block) => sum + (block.type === 'text' ? Buffer.byteLength(block.text ?? '') : 0),
    0,
  );
}

async function request(client: Client, command: string, rest: string[]): Promise<unknown> {
  switch (command) {
    case 'tools': {
      const tools = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return { tools };
    }
    case 'resources':
      return client.listResources();
    case 'templates':
      return client.listResourceTemplates();
    case 'prompts':
      return client.listPrompts();
    case 'read': {
      const [uri] = rest;
      if (!uri) throw new UsageError('read needs a resource URI');
      return client.readResource({ uri });
    }
    case 'prompt': {
      const [name, args] = rest;
      if (!name) throw new UsageError('prompt needs a prompt name');
      return client.getPrompt({ name, arguments: jsonArguments(args) as Record<string, string> });
    }
    case 'call': {
      const [name, args] = rest;
      if (!name) throw new UsageError('call needs a tool name');
      const result = await client.callTool({ name, arguments: jsonArguments(args) });
      await answerInApp(client, result);
      return result;
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

/**
 * With JUMPERLESS_TRIAL_APP_ANSWER (`yes` or `no`) this client is a host that renders the board's
 * MCP App and cannot elicit, and the person at the board answers every hazard question in the app's
 * form as soon as its call returns `confirmation_pending`: the model sees that result only (the
 * app's own tool is called as the app calls it, through its host); the same call again takes the
 * answer.
 */
const APP_ANSWER = ((value) => (value === 'yes' || value === 'no' ? value : undefined))(
  process.env.JUMPERLESS_TRIAL_APP_ANSWER,
);

async function answerInApp(client: Client, result: unknown): Promise<void> {
  if (!APP_ANSWER) return;
  const { isError, content } = result as { isError?: boolean; content?: Array<{ text?: string }> };
  if (!isError) return;
  let failure: { code?: unknown; question?: { id?: unknown } };
  try {
    failure = JSON.parse(content?.[0]?.text ?? '{}');
  } catch {
    return;
  }
  if (failure.code !== 'confirmation_pending' || typeof failure.question?.id !== 'string') return;
  await client.callTool({
    name: 'confirm_answer',
    arguments: { question: failure.question.id, answer: APP_ANSWER },
  });
  // What the app then puts in the chat through its host (ui/message, the words of tellModel in
  // src/tools/viewPage.ts): a model in a real host reads it as the person's next message, so the
  // trial's model is shown it too, on stderr to keep stdout the exact MCP result.
  const { question, tool } = failure.question as { question?: unknown; tool?: unknown };
  const words =
    APP_ANSWER === 'yes'
      ? `I said yes in the board view to: ${question} Call ${tool} again with the same arguments now.`
      : `I said no in the board view to: ${question} Do not run ${tool}.`;
  process.stderr.write(`[the person, through the board app in the chat] ${words}\n`);
}

interface LogLine {
  command: string;
  args: string[];
  isError: boolean;
  bytes: number;
}

function score(path: string): void {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LogLine);
  const calls = lines.filter((l) => l.command === 'call');
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`requests:          ${lines.length} (${lines.length - calls.length} listing or reading)`);
  out(`tool calls:        ${calls.length} (${calls.filter((l) => l.isError).length} errors)`);
  out(`tool result bytes: ${calls.reduce((sum, l) => sum + l.bytes, 0)}`);
  for (const l of calls)
    out(`  ${l.args[0]} ${l.args[1] ?? '{}'} -> ${l.isError ? 'error, ' : ''}${l.bytes} bytes`);
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--score') {
    if (!argv[1]) throw new UsageError('--score needs the log file');
    score(argv[1]);
    return 0;
  }
  const url = /^https?:\/\//.test(argv[0] ?? '')
    ? (argv.shift() as string)
    : process.env.JUMPERLESS_TRIAL_URL;
  const [command, ...rest] = argv;
  if (!url) throw new UsageError('no server URL: give it first, or set JUMPERLESS_TRIAL_URL');
  if (!command) throw new UsageError('no command');
  const client = new Client(
    { name: 'jumperless-trial', version: '1' },
    APP_ANSWER ? { capabilities: { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } } } : {},
  );
  const token = process.env.JUMPERLESS_TRIAL_TOKEN;
  const headers = token ? { Authorization: `Bearer ${token.trim()}` } : undefined;
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : {}),
  );
  let result: unknown;
  let failed = false;
  try {
    result = await request(client, command, rest);
  } catch (error) {
    // A JSON-RPC error (an unknown tool, bad arguments) as the server sent it; tool errors are results.
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'number') throw error;
    const { message, data } = error as { message: string; data?: unknown };
    result = { error: { code, message, ...(data === undefined ? {} : { data }) } };
    failed = true;
  } finally {
    await client.close();
  }
  const log = process.env.JUMPERLESS_TRIAL_LOG;
  const folder = log ? join(dirname(log), 'pictures') : join(tmpdir(), 'jumperless-trial');
  process.stdout.write(`${JSON.stringify(savePictures(result, folder), null, 2)}\n`);
  if (log) {
    const line: LogLine = {
      command,
      args: rest,
      isError: failed || (result as { isError?: boolean }).isError === true,
      bytes: command === 'call' && !failed ? textBytes(result) : Buffer.byteLength(JSON.stringify(result)),
    };
    appendFileSync(log, `${JSON.stringify(line)}\n`);
  }
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
