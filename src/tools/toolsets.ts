/**
 * Toolsets: the catalog's groups as a person chooses them (`--toolsets wiring,measure`). Data, not
 * code: each names the tool groups (files in this folder) it holds and says in one line what for.
 */
export const TOOLSETS = {
  wiring: {
    groups: ['connections', 'state'],
    description: 'bridges, nets, the whole board state, Wokwi import',
  },
  power: { groups: ['power', 'wavegen'], description: 'supply setpoints and the wave generator' },
  measure: { groups: ['measure'], description: 'volts, amps, ohms, sweeps' },
  io: { groups: ['gpio'], description: 'GPIO pins and PWM' },
  display: { groups: ['leds', 'oled'], description: 'LED overlays and the OLED' },
  user: { groups: ['user'], description: 'the probe, its buttons, the clickwheel, asking the person' },
  slots: { groups: ['slots'], description: "the board's saved slots" },
  files: { groups: ['files'], description: "the board's flash files" },
  system: { groups: ['system'], description: 'versions, context, core pause, firmware undo, Nano reset' },
  exec: {
    groups: ['exec', 'scripts'],
    description: 'MicroPython: raw, and scripts saved and run (needs jumperless.exec)',
  },
} as const satisfies Record<string, { groups: readonly string[]; description: string }>;

export type Toolset = keyof typeof TOOLSETS;
export const TOOLSET_NAMES = Object.keys(TOOLSETS) as Toolset[];

export function isToolset(name: string): name is Toolset {
  return Object.hasOwn(TOOLSETS, name);
}

/** The toolset a tool group belongs to; undefined for a group of no toolset (a bench's other servers). */
export function toolsetOf(group: string): Toolset | undefined {
  // A bench's board tools carry their group too, so the last dotted part is the catalog's group.
  const own = group.slice(group.lastIndexOf('.') + 1);
  return TOOLSET_NAMES.find((name) => (TOOLSETS[name].groups as readonly string[]).includes(own));
}
