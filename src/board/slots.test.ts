import { describe, expect, it } from 'vitest';
import { parseColor } from './colors.js';
import { Connections } from './connections.js';
import { BUFFER_IN, DAC0, GND, GPIO_1, nanoD, TOP_RAIL } from './nodes.js';
import { formatSlotYaml, isSlot, parseSlotYaml, slotFromConnections, slotPath } from './slots.js';

const POWER = { topRail: 3.3, bottomRail: 2.5, dac0: 3.33, dac1: 0 };

function sample() {
  const c = new Connections();
  c.clear();
  c.connect(38, 44);
  c.connect(TOP_RAIL, nanoD(5));
  c.connect(GPIO_1, 12, 3);
  c.setNetName(7, 'sense "A"');
  const hex = parseColor('#123456');
  if (hex.ok) c.setNetColor(7, hex.color);
  return slotFromConnections(c, POWER);
}

const GOLDEN = `version: 2
sourceOfTruth: bridges

bridges:
  - {n1: BUFFER_IN, n2: DAC0, dup: 1}
  - {n1: 38, n2: 44, dup: 2}
  - {n1: TOP_RAIL, n2: NANO_D5, dup: 2}
  - {n1: RP_GPIO_1, n2: 12, dup: 3}

nets:
  - {num: 2, nodes: [TOP_R, D5], color: red}
  - {num: 4, nodes: [DAC_0, BUF_IN], color: amber}
  - {num: 6, nodes: [38, 44], color: pink}
  - {num: 7, nodes: [GP_1, 12], name: "sense \\"A\\"", color: 0x123456}

power:
  topRail: 3.30
  bottomRail: 2.50
  dac0: 3.33
  dac1: 0.00
`;

describe('slots', () => {
  it('knows slots 0-7', () => {
    expect([0, 7].every(isSlot)).toBe(true);
    expect([-1, 8, 1.5, '1', null].some(isSlot)).toBe(false);
    expect(slotPath(3)).toBe('/slots/slot3.yaml');
  });

  it('writes the firmware layout', () => {
    expect(formatSlotYaml(sample())).toBe(GOLDEN);
  });

  it('round-trips', () => {
    const out = parseSlotYaml(formatSlotYaml(sample()));
    expect(out).toEqual({ ok: true, slot: sample() });
  });

  it('rebuilds the same connections from a parsed slot', () => {
    const out = parseSlotYaml(GOLDEN);
    if (!out.ok) throw new Error(out.error);
    const c = new Connections();
    for (const b of out.slot.bridges) c.connect(b.n1, b.n2, b.dup);
    expect(c.bridges().map((b) => [b.node1, b.node2, b.duplicates])).toEqual([
      [BUFFER_IN, DAC0, 1],
      [38, 44, 2],
      [TOP_RAIL, nanoD(5), 2],
      [GPIO_1, 12, 3],
    ]);
  });

  it('reads a firmware file with comments, config and empty lists', () => {
    const text = [
      '# saved by the board',
      'version: 2',
      'sourceOfTruth: bridges',
      'bridges:',
      '  - {n1: 1, n2: GND}   # ground row 1',
      'nets: []',
      'power: {topRail: 5.0, dac0: 3.33}',
      'config:',
      '  routing: {stackPaths: 2, stackRails: 3, stackDacs: 0, railPriority: 1}',
      '  gpio:',
      '    direction:    [1,1,1,1,1,1,1,1,1,1]',
      '',
    ].join('\n');
    expect(parseSlotYaml(text)).toEqual({
      ok: true,
      slot: {
        bridges: [{ n1: 1, n2: GND, dup: 2 }],
        nets: [],
        power: { topRail: 5, bottomRail: 0, dac0: 3.33, dac1: 0 },
      },
    });
  });

  it.each([
    ['', 'missing "version: 2"'],
    ['version: 3', 'line 1: unsupported version 3'],
    ['version: 2\nsourceOfTruth: nets', 'line 2: sourceOfTruth'],
    ['version: 2\nfoo: bar', 'line 2: unknown section "foo"'],
    ['version: 2\nbridges:\n  - {n1: 1, n2: NOPE}', 'line 3: n2: unknown node "NOPE"'],
    ['version: 2\nbridges:\n  - {n1: 1, n2: 2, dup: 9}', 'line 3: dup must be an integer 0..8'],
    ['version: 2\nbridges:\n  - {n1: 1, n2: 2, wat: 1}', 'line 3: unknown key "wat"'],
    ['version: 2\nbridges:\n  - {n1: 1, n2: 2', "line 3: expected ',' or '}'"],
    ['version: 2\nbridges:\n  - {n1: 1, n2: 118}', 'not routable'],
    ['version: 2\nbridges:\n  - [1, 2]', 'must be a {key: value} map'],
    ['version: 2\nnets:\n  - {num: 6, nodes: 5}', 'nodes must be a [list]'],
    ['version: 2\npower:\n  topRail: 12', 'power.topRail is outside -8..8 V'],
    ['version: 2\npower:\n  topRail: high', 'topRail must be a number'],
    ['version: 2\npower:\n  volts: 1', 'unknown power key'],
    ['  - {n1: 1, n2: 2}', 'line 1: indented line outside a section'],
    ['version: 2\n\tbridges:', 'tabs'],
    ['\u0000\u0001garbage', 'line 1'],
  ])('refuses %j', (text, message) => {
    const out = parseSlotYaml(text);
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error).toContain(message);
  });

  it('refuses more than 128 bridges', () => {
    const rows = Array.from({ length: 129 }, (_, i) => `  - {n1: ${(i % 59) + 1}, n2: 60}`);
    const out = parseSlotYaml(`version: 2\nbridges:\n${rows.join('\n')}`);
    expect(out.ok).toBe(false);
  });
});
