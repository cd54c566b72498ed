/**
 * Argument shapes several tools share, defined once so that a range reads the same in every tool
 * and a client can enforce it. Descriptions sit on the shape only where its name and type do not
 * say it: a field that reuses a shape adds its own words with `.describe()`.
 */
import { z } from 'zod';
import { DAC_SAFE } from '../board/limits.js';

/**
 * A node without words, for a field whose own description (or a sibling's) already says what a node is.
 * The name's length is checked, not listed: every node field would repeat it in tools/list, and a name
 * outside 1-32 characters is refused in words anyway.
 */
export const nodeValue = z.union([
  z.number().int(),
  z.string().refine((s) => s.length >= 1 && s.length <= 32, 'a node name has 1-32 characters'),
]);

/** A row number or a node name, checked against the board model by routableNode (nodeArg.ts). */
export const nodeArg = nodeValue.describe('Row 1-60 or name: GND, TOP_RAIL, GPIO_1, D13...');

/** Two nodes to bridge. */
export const nodePair = z.array(nodeArg).length(2);

/** A supply setpoint in volts, inside the board's safe envelope (tighter operator limits are checked in code). */
export const voltsArg = z.number().min(DAC_SAFE.min).max(DAC_SAFE.max);

/** An LED colour. */
export const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour is #rrggbb');
