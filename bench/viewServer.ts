/**
 * bench/view.ts's server, in a process of its own as a real one is: the MCP server with its HTTP
 * endpoint, the page and the event stream, on a board's REPL port and, unless `off`, its telemetry
 * port (CDC3). Prints `url <mcp url>` once it listens; ends on SIGTERM.
 *
 *   npx tsx bench/viewServer.ts <repl device> <telemetry device|off>
 */
import { buildApp } from '../src/cli/app.js';
import { DEFAULT_CONFIG } from '../src/cli/config.js';
import { ANONYMOUS_CAPABILITIES } from '../src/core/capabilities.js';
import { startHttpServer } from '../src/http/app.js';

const [device, telemetry] = process.argv.slice(2);
if (!device || !telemetry) throw new Error('usage: viewServer.ts <repl device> <telemetry device|off>');
const granted = new Set(ANONYMOUS_CAPABILITIES);
const app = await buildApp({ ...DEFAULT_CONFIG, device, telemetry });
const http = await startHttpServer({
  port: 0,
  dispatcher: app.dispatcher,
  createServer: (_, era) =>
    app.createServer((id) => ({ id: `http:${id ?? 'stateless'}`, granted }), {
      era,
      perRequest: era === 'modern',
    }),
});
process.stdout.write(`url ${http.url}\n`);
process.once('SIGTERM', () => {
  void (async () => {
    await http.close();
    await app.close();
    process.exit(0);
  })();
});
