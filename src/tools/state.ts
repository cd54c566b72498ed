/**
 * The state group: the board state as one document (spec §7) here; applying one (stateSet.ts),
 * host-side snapshots with undo (stateUndo.ts), and Wokwi import (wokwi.ts).
 */
import { z } from 'zod';
import { renderBoardPicture } from './boardPicture.js';
import {
  overlaySummarySchema,
  ramPython,
  readState,
  stateDocumentSchema,
  withOverlaySummaries,
} from './boardState.js';
import type { PythonPart } from './pythonParts.js';
import { restorePlanPython } from './restorePlan.js';
import { readSnapshot, SNAPSHOT_REQUIRES, snapshotPython } from './snapshot.js';
import { stateSet, stateSetPython } from './stateSet.js';
import { stateSnapshot, stateUndo } from './stateUndo.js';
import { defineDeviceTool } from './tool.js';
import { wokwiImport } from './wokwi.js';

/** The board-side parts the state tools call: the RAM state, the board image, set_state and the bridges' routes. */
export const python: readonly PythonPart[] = [ramPython, restorePlanPython, stateSetPython, snapshotPython];

export const stateGet = defineDeviceTool({
  name: 'state_get',
  title: 'Read the board state',
  description:
    'The board: supply setpoints, nets and nodes, GPIO pins and LED overlays (their pixels: overlay_list).',
  group: 'state',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['get_state'],
  input: z.object({}),
  output: stateDocumentSchema.extend({ overlays: z.array(overlaySummarySchema) }),
  handle: async (_args, { board }) => withOverlaySummaries((await readState(board)).state),
});

/** The picture the board_picture resource has, for clients that only call tools. */
export const boardPicture = defineDeviceTool({
  name: 'board_picture',
  title: 'Picture of the board',
  description: 'A PNG of the breadboard now: rows in their LED colours, bridges, rails with voltages, nets.',
  group: 'state',
  kind: 'read',
  capability: 'jumperless.read',
  requires: SNAPSHOT_REQUIRES,
  input: z.object({}),
  output: z.object({ bytes: z.number().describe('Size of the PNG') }),
  handle: async (_args, { board, attachImage }) => {
    const png = renderBoardPicture(await readSnapshot(board));
    attachImage({ mimeType: 'image/png', data: Buffer.from(png).toString('base64') });
    return { bytes: png.length };
  },
});

export default [stateGet, stateSet, stateSnapshot, stateUndo, wokwiImport, boardPicture];
