/** The Jumperless tool catalog: every group's tools, and the board-side helper they share. */

import type { AnyTool } from '../core/toolDefinition.js';
import type { HelperModule } from '../device/session.js';
import * as connections from './connections.js';
import * as exec from './exec.js';
import * as files from './files.js';
import * as gpio from './gpio.js';
import * as leds from './leds.js';
import * as measure from './measure.js';
import * as oled from './oled.js';
import * as power from './power.js';
import { type PythonPart, toolsHelper } from './pythonParts.js';
import { crossbarPython } from './resources.js';
import * as scripts from './scripts.js';
import * as slots from './slots.js';
import { snapshotPython } from './snapshot.js';
import * as state from './state.js';
import * as system from './system.js';
import * as user from './user.js';
import * as wavegen from './wavegen.js';

/**
 * Tool groups: file name = group id. Each exports `default` (its tools) and `python`: every
 * board-side part its tools call, its own and shared ones, so a group never relies on another's.
 */
export const groups: ReadonlyArray<{ default: readonly AnyTool[]; python?: readonly PythonPart[] }> = [
  power,
  gpio,
  connections,
  measure,
  leds,
  wavegen,
  oled,
  user,
  slots,
  state,
  files,
  system,
  exec,
  scripts,
];

export const catalog: readonly AnyTool[] = groups.flatMap((group) => group.default);

/**
 * `_jlt`: the union of the parts the groups list, each once, in the order first listed; and the
 * snapshot and the crossbar, which the MCP resources read the board with (resources.ts).
 */
export const boardHelper: HelperModule = toolsHelper([
  ...groups.flatMap((group) => group.python ?? []),
  snapshotPython,
  crossbarPython,
]);
