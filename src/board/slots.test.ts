import { describe, expect, it } from 'vitest';
import { Connections } from './connections.js';
import { BUFFER_IN, DAC0, GND, GPIO_1, nanoD, SUPPLY_5V, TOP_RAIL } from './nodes.js';
import {
  defaultSlotConfig,
  formatSlotYaml,
  isSavableSlot,
  isSlot,
  parseFirmwareNodeName,
  parseSlotYaml,
  powerOnSlot,
  slotFromConnections,
  slotPath,
} from './slots.js';

const POWER = { topRail: 3.3, bottomRail: 2.5, dac0: 3.33, dac1: 0 };

function sample() {
  const c = new Connections();
  c.connect(BUFFER_IN, DAC0, 0);
  c.connect(38, 44);
  c.connect(TOP_RAIL, nanoD(5));
  c.connect(GPIO_1, 12, 3);
  c.connect(20, 21);
  c.setNetName(7, 'Power');
  return slotFromConnections(c, POWER, {
    overlays: [
      { name: 'dot', row: 2, col: 3, width: 2, height: 2, colors: [0xff0000, 0x00ff00, 0x0000ff, 0] },
    ],
  });
}

const GOLDEN = `version: 2
sourceOfTruth: bridges

bridges:
  - {n1: BUFFER_IN, n2: DAC0, dup: 0}
  - {n1: 38, n2: 44, dup: 2}
  - {n1: TOP_RAIL, n2: NANO_D5, dup: 2}
  - {n1: RP_GPIO_1, n2: 12, dup: 3}
  - {n1: 20, n2: 21, dup: 2}

nets:
  - {num: 2, nodes: [TOP_R, D5], anim: true}
  - {num: 4, nodes: [DAC_0, BUF_IN], anim: true}
  - {num: 6, nodes: [38, 44], color: pink}
  - {num: 7, nodes: [GP_1, 12], name: "Power", anim: true}
  - {num: 8, nodes: [20, 21], color: seafoam}

power:
  topRail: 3.30
  bottomRail: 2.50
  dac0: 3.33
  dac1: 0.00

config:
  routing: {stackPaths: 2, stackRails: 3, stackDacs: 0, railPriority: 1}
  gpio:
    direction:    [1,1,1,1,1,1,1,1,1,1]
    pulls:        [0,0,0,0,0,0,0,0,0,0]
    pwmFrequency: [1.00,1.00,1.00,1.00,1.00,1.00,1.00,1.00,1.00,1.00]
    pwmDutyCycle: [0.50,0.50,0.50,0.50,0.50,0.50,0.50,0.50,0.50,0.50]
    pwmEnabled:   [0,0,0,0,0,0,0,0,0,0]
    readFloating: [1,1,1,1,1,1,1,1,0,0]
  uart: {txFunction: 0, rxFunction: 1}
  oled: {connected: false, lockConnection: false}

overlays:
  - name: "dot"
    row: 2
    col: 3
    width: 2
    height: 2
    colors:
           [0xFF0000, 0x00FF00,
            0x0000FF, 0x000000]
`;

describe('slot numbers and files', () => {
  it('knows slots 0-7 and the Python slot 99', () => {
    expect([0, 7].every(isSlot)).toBe(true);
    expect([-1, 8, 99, 1.5, '1', null].some(isSlot)).toBe(false);
    expect([0, 7, 99].every(isSavableSlot)).toBe(true);
    expect([8, -1, 98].some(isSavableSlot)).toBe(false);
    expect(slotPath(3)).toBe('/slots/slot3.yaml');
    expect(slotPath(99)).toBe('/slots/slotPython.yaml');
  });
});

describe('formatSlotYaml', () => {
  it('writes the firmware layout', () => {
    const text = formatSlotYaml(sample());
    // The auto colours come from the connections' palette; the rest is fixed.
    expect(text.replace(/color: [a-z ]+}/g, 'color: X}')).toBe(
      GOLDEN.replace(/color: [a-z ]+}/g, 'color: X}'),
    );
  });

  it('leaves out an empty bridges section and prints the power-on slot', () => {
    const text = formatSlotYaml({ ...powerOnSlot(), bridges: [], nets: [] });
    expect(text.startsWith('version: 2\nsourceOfTruth: bridges\n\nnets:\n\npower:\n  topRail: 0.00\n')).toBe(
      true,
    );
    expect(formatSlotYaml(powerOnSlot())).toContain(
      'bridges:\n  - {n1: BUFFER_IN, n2: DAC0, dup: 0}\n\nnets:\n  - {num: 4, nodes: [DAC_0, BUF_IN], anim: true}\n\n',
    );
  });
});

describe('parseSlotYaml', () => {
  it('reads back what it writes', () => {
    const slot = sample();
    const out = parseSlotYaml(formatSlotYaml(slot));
    if (!out.ok) throw new Error(out.error);
    expect(out.skipped).toEqual([]);
    expect(out.slot.bridges).toEqual(slot.bridges);
    expect(out.slot.power).toEqual(slot.power);
    expect(out.slot.config).toEqual(defaultSlotConfig());
    expect(out.slot.overlays).toEqual(slot.overlays);
    expect(out.slot.nets.map((n) => [n.num, n.name, n.anim])).toEqual(
      slot.nets.map((n) => [n.num, n.name, n.anim]),
    );
  });

  it('is as lenient as the board: comments, missing fields, unknown lines and bad bridges are skipped', () => {
    const text = [
      '# edited by hand',
      'version: 2',
      'bridges:',
      '  - {n1: 1, n2: GND}',
      '  - {n1: top rail, n2: d5, dup: 4, color: red}',
      '  - {n1: 1, n2: NOPE}',
      '  - {n1: 3, n2: 3}',
      '  - {n1: 1, n2: GND, dup: 5}',
      '  whatever: 1',
      'nets:',
      '  - {num: 7, nodes: [1, GND], color: 0x123456, name: "a, b", user: true}',
      'power:',
      '  topRail: 5',
      '  volts: 9',
      'config:',
      '  gpio:',
      '    direction:    [0,1,0]',
      '    pulls:        [1,1]',
      '    pwmEnabled:   [1]',
      'fakeGpio:',
      '    - {slot: 0, node: 20, mode: 1}',
    ].join('\n');
    const out = parseSlotYaml(text);
    if (!out.ok) throw new Error(out.error);
    expect(out.slot.bridges).toEqual([
      { n1: 1, n2: GND, dup: 5 },
      { n1: TOP_RAIL, n2: nanoD(5), dup: 4, color: 'red' },
    ]);
    expect(out.skipped).toHaveLength(2);
    expect(out.slot.nets).toEqual([{ num: 7, nodes: [1, GND], color: '0x123456', name: 'a, b', user: true }]);
    expect(out.slot.power).toEqual({ topRail: 5, bottomRail: 0, dac0: 3.33, dac1: 0 });
    expect(out.slot.config.gpio.direction.slice(0, 4)).toEqual([0, 1, 0, 1]);
    expect(out.slot.config.gpio.pulls.slice(0, 3)).toEqual([1, 1, 0]);
    expect(out.slot.config.gpio.pwmEnabled[0]).toBe(true);
    expect(out.slot.config.fakeGpio).toEqual(['{slot: 0, node: 20, mode: 1}']);
  });

  it('gives a missing dup the default stacking, and an existing bridge one more', () => {
    const out = parseSlotYaml('bridges:\n- {n1: 5, n2: 6}\n- {n1: 6, n2: 5}\n');
    expect(out.ok && out.slot.bridges).toEqual([{ n1: 5, n2: 6, dup: 3 }]);
  });

  it('refuses only supplies outside -8..8 V', () => {
    const out = parseSlotYaml('version: 2\npower:\n  topRail: 12\n');
    expect(out.ok).toBe(false);
    expect(parseSlotYaml('\u0000garbage').ok).toBe(true);
  });
});

describe('parseFirmwareNodeName', () => {
  it.each([
    ['12', 12],
    [' 7 ', 7],
    ['0', 0],
    ['201', -1],
    ['12abc', 12],
    ['-3', -1],
    ['gnd', GND],
    ['Top Rail', TOP_RAIL],
    ['TOP_R', TOP_RAIL],
    ['t_r', TOP_RAIL],
    ['BUFFER_IN', BUFFER_IN],
    ['buf_in', BUFFER_IN],
    ['NANO_D5', nanoD(5)],
    ['D5', nanoD(5)],
    ['RP_GPIO_1', GPIO_1],
    ['GP_1', GPIO_1],
    // A leading digit reads a row: "3V3" is row 3, "5V" row 5 (the name tables are never reached).
    ['3V3', 3],
    ['5V', 5],
    ['+5V', SUPPLY_5V],
    ['NANO_3V3', 98],
    ['FGPI16', 174],
    // Past the 70 entries parseNodeName searches.
    ['FGPI17', -1],
    ['GPIO_1', -1],
    ['NOPE', -1],
  ])('%j -> %d', (name, id) => {
    expect(parseFirmwareNodeName(name)).toBe(id);
  });
});
