/**
 * The `get_state()` document (spec §7) as a reader takes it: one zod schema, loose where the
 * firmware's variants differ (a missing `gpio` or `overlays` list), and the types inferred from it.
 * The simulator writes it with the precise types of state.ts, which must stay assignable to these
 * (stateDocument.test.ts).
 */
import { z } from 'zod';

export const stateNetSchema = z.object({
  index: z.number(),
  name: z.string(),
  nodes: z.array(z.string()),
  special: z.string(),
  voltage: z.number().optional(),
  logic: z.number().optional(),
});

export const stateGpioSchema = z.object({
  pin: z.union([z.number(), z.string()]),
  net: z.number().nullable(),
  function: z.string(),
  direction: z.string(),
  pull: z.string(),
  reading: z.string(),
  floating_read: z.number(),
});

/** An LED overlay as the firmware lists it: `RRGGBB` per pixel, row by row. */
export const stateOverlaySchema = z.object({
  name: z.string(),
  row: z.number(),
  col: z.number(),
  width: z.number(),
  height: z.number(),
  colors: z.array(z.string()),
});

export const stateDocumentSchema = z.object({
  power: z.object({ top_rail: z.number(), bottom_rail: z.number(), dac0: z.number(), dac1: z.number() }),
  nets: z.array(stateNetSchema),
  gpio: z.array(stateGpioSchema).default([]),
  overlays: z.array(stateOverlaySchema).default([]),
});

export type StateDocument = z.infer<typeof stateDocumentSchema>;
export type StateDocumentNet = z.infer<typeof stateNetSchema>;
export type StateDocumentOverlay = z.infer<typeof stateOverlaySchema>;
