#!/usr/bin/env node
import { Command } from 'commander';
import { runSimCommand } from './simCommand.js';
import { tokensCommand } from './tokensCommand.js';

const program = new Command()
  .name('jumperless-mcp')
  .description('MCP server for the Jumperless V5 breadboard, with a virtual board for trying it without one')
  .version('0.1.0');

program
  .command('sim')
  .description('run the virtual Jumperless V5 on its own and print where each USB port is')
  .option('--parts <file>', 'parts placed on the virtual breadboard (JSON, see test/fixtures/parts)')
  .option('--tcp <port>', 'first TCP port (one per USB port: main, uart, repl, backchannel)', '0')
  .option('--pty <dir>', 'also make a pseudo-terminal per port in this folder (needs socat)')
  .option('--fs <dir>', 'keep the board flash in this folder')
  .option('--noise-seed <n>', 'add seeded measurement noise')
  .action(async (options) => runSimCommand(options, process.stdout));

program.addCommand(tokensCommand());

program
  .command('start', { isDefault: true })
  .description('start the virtual board (the MCP server will live here)')
  .action(async () => runSimCommand({}, process.stdout));

program.parseAsync().catch((error: unknown) => {
  process.stderr.write(`jumperless-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
