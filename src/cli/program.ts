/**
 * `jumperless-mcp`: the MCP server on stdio (default) or Streamable HTTP, on a board, a TCP link or
 * the virtual board; `start` for a person at a terminal; `sim` for the virtual board alone.
 */
import { Command, CommanderError } from 'commander';
import type { ServerExtras } from '../core/dispatcher.js';
import { PACKAGE_VERSION } from '../core/version.js';
import { type BoardOptions, boardOf, rewriteArgv, unknownCommand } from './commandLine.js';
import type { Flags } from './config.js';
import { DEFAULT_HTTP_PORT } from './defaults.js';
import { tokensCommand } from './tokensCommand.js';
import { UsageError } from './usageError.js';

/** What `--device` takes (serve holds real boards only; the virtual board is never shared). */
const DEVICE_HELP =
  'board: serial path, auto, auto:<usb-location>, tcp://host:port (or socket://), rfc2217://host:port';
/** A command's `--device`: its own, else the one before the command, $JUMPERLESS_MCP_DEVICE, auto. */
const COMMAND_DEVICE_HELP = `${DEVICE_HELP}, sim, sim:<parts.json> (default: --device/--sim before the command, else $JUMPERLESS_MCP_DEVICE, else auto)`;
const SIM_HELP = 'the virtual board (the same as --device sim)';

const program = new Command()
  // A mistyped flag or command, a missing argument: refused before anything ran, exit 2 (the
  // commands inherit this; see runProgram).
  .exitOverride()
  .name('jumperless-mcp')
  .description('MCP server for the Jumperless V5 breadboard, with a virtual board for trying it without one')
  .version(PACKAGE_VERSION)
  .enablePositionalOptions()
  .option('--device <url>', `${DEVICE_HELP}, sim, sim:<parts.json>`)
  .option('--sim [parts.json]', 'use the virtual board (optionally with parts on it)')
  .option('--firmware <version>', "the virtual board's firmware: 5.7.11.0 (default) or 5.7.0.13")
  .option(
    '--http [host:port]',
    `serve Streamable HTTP instead of stdio (default 127.0.0.1:${DEFAULT_HTTP_PORT})`,
  )
  .option('--origin <origin...>', 'also allow these browser origins over HTTP (exact match)')
  .option('--audit <file>', 'append one JSON line per tool call to this file')
  .option('--max-volts <volts>', 'highest supply voltage tools may set (<= 8)')
  .option('--min-volts <volts>', 'lowest supply voltage tools may set (>= -8)')
  .option(
    '--config <file>',
    'serve a federation: the boards and MCP servers a JSON config names, behind one endpoint',
  )
  .option('--list-mode <mode>', 'what tools/list shows: full, names or discovery (default: the client asks)')
  .option(
    '--output-schemas',
    'put the output schemas in tools/list (models never see them; off saves half the bytes)',
  )
  .option(
    '--toolsets <list>',
    'toolsets on at start (wiring, power, measure, io, display, user, slots, files, system, exec); toolset_enable adds more',
  )
  .option('--tools <list>', 'single tools on, besides the toolsets (comma list)')
  .option('--exclude-tools <list>', 'tools off, whatever else says (comma list)')
  .option('--read-only', 'offer only the tools that change nothing')
  .option(
    '--confirm <mode>',
    'ask the person before a hazard: hazards (when the client can; default), always (refuse when it cannot), never',
  )
  .option('--confirm-above-volts <volts>', 'a supply set above this asks first (default 5)')
  .option(
    '--telemetry <port>',
    "where the board view reads: auto (the board's CDC3 beside its REPL; default), off (the REPL, after every caller) or a path",
  )
  .option('--tokens <store>', 'bearer token store for HTTP (default ~/.config/jumperless-mcp/tokens.json)')
  .option('--require-token', 'refuse HTTP requests without a bearer token (always on off loopback)')
  .option(
    '--outside-lease <source>',
    "honour an outside lease (labgrid place, Jumpstarter lease): claim:<name> of the caller's token, or header:<Name> from a proxy on this machine",
  )
  .option(
    '--lease-name <name>',
    'the outside lease name this board is bound to (a labgrid place, a Jumpstarter exporter)',
  )
  .option('--anonymous-caps <caps>', 'what HTTP callers without a token may do: a comma list, * or none')
  .option('--grant-capability <cap...>', 'the most any caller may get (stdio, HTTP, socket); default all')
  .option('--socket [path]', 'also serve the native socket (mode 0600; default in the runtime dir)')
  .argument('[command...]')
  .usage('[options] [command]')
  .action(async (words: string[], flags: Flags) => {
    // Words that name no command (`jumperless-mcp exce`) would otherwise start a server.
    if (words.length > 0) throw unknownCommand(words[0] as string, commandNames());
    // The server's modules load here, not at the top, so that --help, --version and the one-shot
    // commands start without them.
    const { resolveConfig } = await import('./config.js');
    const { runHttp, runStdio } = await import('./serve.js');
    const config = resolveConfig(flags);
    if (config.http) {
      const { http } = await runHttp(config, { extras });
      const what = config.federation ? `federation: ${config.federation}` : `board: ${config.device}`;
      process.stderr.write(`jumperless-mcp: serving ${http.url} (${what})\n`);
    } else {
      await runStdio(config, extras);
    }
  });

program
  .command('start')
  .description(
    'serve HTTP on loopback with the board if one is plugged in, else the virtual board, and print client setups',
  )
  .option('--port <port>', `TCP port (default ${DEFAULT_HTTP_PORT}, or a free one when that is busy)`)
  .action(async (options: { port?: string }) => {
    const { parsePort, resolveConfig } = await import('./config.js');
    const { runHttp } = await import('./serve.js');
    const { boardOrSim } = await import('./board.js');
    const { clientConfigs } = await import('./clientConfigs.js');
    const base = resolveConfig({}, process.env);
    const port = options.port === undefined ? DEFAULT_HTTP_PORT : parsePort(options.port, '--port');
    const device = process.env.JUMPERLESS_MCP_DEVICE ? base.device : await boardOrSim();
    const config = { ...base, device, http: base.http ?? { host: '127.0.0.1', port } };
    // Another port only when none was asked for: a port asked for is the one the client will use.
    const { http } = await runHttp(config, { anyPortIfBusy: options.port === undefined && !base.http });
    const board =
      device === 'sim' ? 'the virtual Jumperless V5 (no board found)' : `the Jumperless on ${device}`;
    process.stdout.write(
      `jumperless-mcp is serving ${board} at\n\n  ${http.url}\n\n${clientConfigs(http.url)}\n\nCtrl-C stops it.\n`,
    );
  });

program
  .command('view')
  .description(
    'show the board in a browser, live: the page of the jumperless-mcp serving HTTP on the port, or of one started as start does',
  )
  .option('--port <port>', `TCP port (default ${DEFAULT_HTTP_PORT})`)
  .option('--no-open', 'only print the address of the page')
  .action(async (options: { port?: string; open: boolean }) => {
    const { parsePort, resolveConfig } = await import('./config.js');
    const { findViewServer, openInBrowser } = await import('./viewCommand.js');
    const port = options.port === undefined ? DEFAULT_HTTP_PORT : parsePort(options.port, '--port');
    let base = await findViewServer(port);
    if (!base) {
      const { runHttp } = await import('./serve.js');
      const { boardOrSim } = await import('./board.js');
      const config = resolveConfig({}, process.env);
      const device = process.env.JUMPERLESS_MCP_DEVICE ? config.device : await boardOrSim();
      const { http } = await runHttp(
        { ...config, device, http: { host: '127.0.0.1', port } },
        { anyPortIfBusy: options.port === undefined },
      );
      base = http.url.replace(/\/mcp$/, '');
      process.stderr.write(`jumperless-mcp: serving ${http.url}; Ctrl-C stops it\n`);
    }
    process.stdout.write(`${base}/\n`);
    if (options.open) openInBrowser(`${base}/`);
  });

program
  .command('detect')
  .description('list the Jumperless boards on USB, their four ports, and the one jumperless-mcp opens')
  .option('--json', 'print the boards and ports as JSON')
  .action(async (options: { json?: boolean }) => {
    const { runDetect } = await import('./detectCommand.js');
    process.exitCode = await runDetect(options, process.stdout);
  });

program
  .command('exec [code]')
  .description('run MicroPython on the board and print its output; a Python error goes to stderr and exits 1')
  .option('--file <file>', 'run the code in this file')
  .option('--stdin', 'run the code read from stdin')
  .option('--device <url>', COMMAND_DEVICE_HELP)
  .option('--sim', SIM_HELP)
  .option('--timeout <seconds>', 'stop the code after this long (it is interrupted on the board)', '30')
  .action(
    async (
      code: string | undefined,
      options: { file?: string; stdin?: boolean; timeout: string } & BoardOptions,
    ) => {
      const { runExec } = await import('./execCommand.js');
      process.exitCode = await runExec(
        code,
        { ...options, device: board(options) },
        { stdout: process.stdout, stderr: process.stderr },
      );
    },
  );

program
  .command('serve')
  .description(
    'hold a board and serve it to every other jumperless-mcp of this user (they find it by the board); no MCP transport',
  )
  .option(
    '--device <url>',
    `${DEVICE_HELP} (default: --device before the command, else $JUMPERLESS_MCP_DEVICE, else auto)`,
  )
  .option(
    '--daemon',
    'start the owner detached (output in a log next to its socket) and return once it serves',
  )
  .action(async (options: { device?: string; daemon?: boolean }) => {
    const { runOwner } = await import('./ownerCommand.js');
    process.exitCode = await runOwner({ ...options, device: board(options) }, process.stdout);
  });

program
  .command('sim')
  .description('run the virtual Jumperless V5 on its own and print where each USB port is')
  .option('--parts <file>', 'parts placed on the virtual breadboard (JSON, see test/fixtures/parts)')
  .option('--tcp <port>', 'first TCP port (one per USB port: main, uart, repl, backchannel)', '0')
  .option('--pty <dir>', 'also make a pseudo-terminal per port in this folder (uses socat, or python3)')
  .option('--fs <dir>', 'keep the board flash in this folder')
  .option('--noise-seed <n>', 'add seeded measurement noise')
  .option('--psram', 'a board with PSRAM fitted: a heap of about 6 MB instead of 64 KB')
  .option('--firmware <version>', 'the firmware release it runs: 5.7.11.0 (default) or 5.7.0.13')
  .action(async (options) => {
    const { runSimCommand } = await import('./simCommand.js');
    await runSimCommand(options, process.stdout);
  });

program
  .command('selftest')
  .description(
    'check a board against the firmware probes (each: code, the expected output, the firmware source line); exit 0 when all pass',
  )
  .option('--device <url>', COMMAND_DEVICE_HELP)
  .option('--sim', SIM_HELP)
  .option(
    '--destructive',
    'also run probes that change wiring, supplies, pins, files or slots (each undoes its change)',
  )
  .option('--fresh', 'the board was just powered on: also check the defaults before first use')
  .option('--only <prefix...>', 'only probes whose id starts with one of these (e.g. files slots.switch)')
  .option('--json', 'print a JSON report (attach it to a bug report)')
  .option('--firmware <version>', "with --device sim: the virtual board's firmware (5.7.11.0 or 5.7.0.13)")
  .action(
    async (
      options: {
        firmware?: string;
        destructive?: boolean;
        fresh?: boolean;
        only?: string[];
        json?: boolean;
      } & BoardOptions,
    ) => {
      const { runSelftest } = await import('./selftest.js');
      process.exitCode = await runSelftest({ ...options, device: board(options) }, process.stdout);
    },
  );

const io = { stdout: process.stdout, stderr: process.stderr };
// A command's output piped into `head` that closed: stop quietly, as other shell tools do (the
// stdio server handles its own stdout).
program.hook('preAction', (_program, command) => {
  if (command === program) return;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
});

program
  .command('state')
  .description(
    "print the board's state: supplies, nets, GPIO, overlays (the state_get tool) and its fingerprint; " +
      "'state diff FILE' compares a declared state (JSON: supplies, nets, gpio, overlays) with the board, " +
      "'state apply FILE' makes the board it (exit 0: the board matches)",
  )
  .argument('[action]', 'diff or apply')
  .argument('[file]', 'the declared state, a JSON file')
  .option('--device <url>', COMMAND_DEVICE_HELP)
  .option('--sim', SIM_HELP)
  .option('--json', 'print the state document (or the diff) as JSON')
  .action(
    async (
      action: string | undefined,
      file: string | undefined,
      options: { json?: boolean } & BoardOptions,
    ) => {
      const { runState, runStateDeclared } = await import('./stateCommand.js');
      if (action === undefined) {
        process.exitCode = await runState({ ...options, device: board(options) }, io);
        return;
      }
      if ((action !== 'diff' && action !== 'apply') || file === undefined) {
        process.stderr.write('state: give diff FILE or apply FILE (or nothing, to print the state)\n');
        process.exitCode = 2;
        return;
      }
      process.exitCode = await runStateDeclared(action, file, { ...options, device: board(options) }, io);
    },
  );

program
  .command('firmware-probe')
  .description(
    'read-only: firmware and MicroPython versions, the jumperless module functions, and which tool groups this firmware can run',
  )
  .option('--device <url>', COMMAND_DEVICE_HELP)
  .option('--sim', SIM_HELP)
  .option('--json', 'print the report as JSON')
  .action(async (options: { json?: boolean } & BoardOptions) => {
    const { runFirmwareProbe } = await import('./firmwareProbeCommand.js');
    process.exitCode = await runFirmwareProbe({ ...options, device: board(options) }, io);
  });

program
  .command('fs <verb> [paths...]')
  .description(
    "the board's flash: ls [DIR], get FILE [LOCAL|-], put LOCAL FILE, rm FILE, dump DIR [--out LOCAL_DIR]",
  )
  .option('--device <url>', COMMAND_DEVICE_HELP)
  .option('--sim', SIM_HELP)
  .option('--json', 'ls and dump: print JSON')
  .option('--overwrite', 'put: replace a file that exists')
  .option('--out <dir>', "dump: the local folder (default: the board folder's name)")
  .action(
    async (
      verb: string,
      paths: string[],
      options: { json?: boolean; overwrite?: boolean; out?: string } & BoardOptions,
    ) => {
      const { runFs } = await import('./fsCommand.js');
      process.exitCode = await runFs(verb, paths, { ...options, device: board(options) }, io);
    },
  );

program
  .command('call <tool>')
  .description(
    'run any tool by name, as an MCP client would (same checks, gate and deadline); prints its JSON result',
  )
  .option('--device <url>', COMMAND_DEVICE_HELP)
  .option('--sim', SIM_HELP)
  .option(
    '--args <json>',
    'the arguments, a JSON object (default {}); `jumperless-mcp tools TOOL` lists them',
  )
  .option('--raw', 'print the whole MCP result (content blocks too)')
  .option('--out <file>', 'write the image of the result (a PNG: board_picture, oled_show) to this file')
  .addHelpText('after', (context) => {
    // `call TOOL --help` (and `help call TOOL`): the tool's own arguments.
    const tool = context.command.args[0];
    return tool === undefined ? '' : `\n${toolHelpText(tool)}`;
  })
  .action(async (tool: string, options: { args?: string; raw?: boolean; out?: string } & BoardOptions) => {
    const { runCall } = await import('./callCommand.js');
    process.exitCode = await runCall(tool, { ...options, device: board(options) }, io);
  });

program
  .command('tools [tool]')
  .description(
    'the tool catalog as a table: name, capability, what it does; with a tool, its arguments (no board needed)',
  )
  .option('--json', 'print the catalog (or the tool) as JSON, with the input schemas')
  .option('--all', 'also any tools hidden from tools/list (callable by name)')
  .action(async (tool: string | undefined, options: { json?: boolean; all?: boolean }) => {
    const { runTools } = await import('./toolsCommand.js');
    process.exitCode = runTools({ ...options, ...(tool === undefined ? {} : { tool }) }, io);
  });

program
  .command('config <client>')
  .description('the setup to paste into claude, claude-desktop, cursor or vscode (stdio by default)')
  .option('--http <url>', 'a running server to reach over HTTP instead, e.g. http://127.0.0.1:8931/mcp')
  .option('--device <url>', "stdio: the board the client's server opens (default auto)")
  .action(async (client: string, options: { http?: string; device?: string }) => {
    const { runConfig } = await import('./configCommand.js');
    process.exitCode = runConfig(client, options, io);
  });

program
  .command('library <verb>')
  .description(
    "install, check or uninstall our versioned helper module on the board's flash (only when asked)",
  )
  .option('--device <url>', COMMAND_DEVICE_HELP)
  .option('--sim', SIM_HELP)
  .option('--json', 'print the result as JSON')
  .action(async (verb: string, options: { json?: boolean } & BoardOptions) => {
    const { runLibrary } = await import('./libraryCommand.js');
    process.exitCode = await runLibrary(verb, { ...options, device: board(options) }, io);
  });

program
  .command('doctor')
  .description('check this machine and the board, and say how to fix each problem found')
  .option('--device <url>', COMMAND_DEVICE_HELP)
  .option('--sim', SIM_HELP)
  .option('--json', 'print the findings as JSON')
  .option('--no-probe', 'do not open the board (only what the OS tells)')
  .action(async (options: { json?: boolean; probe?: boolean } & BoardOptions) => {
    const { runDoctor } = await import('./doctorCommand.js');
    process.exitCode = await runDoctor({ ...options, device: board(options) }, io);
  });

program.addCommand(tokensCommand().exitOverride());
program.helpCommand('help [command]', 'show the help of jumperless-mcp or of one of its commands');

/** The board a command works on (see COMMAND_DEVICE_HELP). */
function board(options: BoardOptions): string {
  return boardOf(options, program.opts<Flags>(), process.env);
}

function commandNames(): string[] {
  return program.commands.map((command) => command.name());
}

/** `call TOOL --help`: the tool's arguments (runProgram loads the catalog when help is asked). */
let toolHelp: ((tool: string) => string) | undefined;
function toolHelpText(tool: string): string {
  return toolHelp ? toolHelp(tool) : `Run jumperless-mcp tools ${tool} for its arguments.`;
}

/** What a server adds beside its root's tools (an embedding's own, e.g. the tests' fixtures). */
let extras: ServerExtras | undefined;

export async function runProgram(own?: ServerExtras): Promise<void> {
  extras = own;
  const argv = rewriteArgv(process.argv.slice(2), commandNames());
  // `call TOOL --help` shows the tool's arguments: the catalog is loaded for it first.
  if (argv.includes('--help') || argv.includes('-h')) ({ toolHelp } = await import('./toolsCommand.js'));
  await program.parseAsync(argv, { from: 'user' }).catch((error: unknown) => {
    if (error instanceof CommanderError) {
      // Commander printed its message already; help and --version are not errors.
      process.exit(error.exitCode === 0 ? 0 : 2);
    }
    process.stderr.write(`jumperless-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  });
}
