#!/usr/bin/env node
/**
 * The entry. A stdio client's first requests (`initialize` or `server/discover`, then `tools/list`)
 * are answered from what the build recorded before anything else loads (mcp/firstAnswers.ts);
 * then the command line (program.ts) loads and runs, and the stdio server takes over from those
 * answers.
 */
import { answerFirst } from '../mcp/firstAnswers.js';

const first = answerFirst(process.argv.slice(2), process.env);
if (first) await first.ready;
const { runProgram } = await import('./program.js');
await runProgram(first);
