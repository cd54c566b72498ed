#!/usr/bin/env node
/** The entry: the command line (program.ts). */
import { runProgram } from './program.js';

await runProgram();
