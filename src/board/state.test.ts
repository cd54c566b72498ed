import { describe, expect, it } from 'vitest';
import { Connections } from './connections.js';
import { BUFFER_IN, DAC0, GND, GPIO_1, TOP_RAIL } from './nodes.js';
import { buildState, float3, formatState, parseState } from './state.js';

function sample() {
  const c = new Connections();
  c.connect(BUFFER_IN, DAC0, 0);
  c.connect(GND, 21);
  c.connect(TOP_RAIL, 23);
  c.connect(1, 5);
  c.connect(5, GPIO_1);
  return buildState(c, {
    power: { topRail: 3.3, bottomRail: 0, dac0: 3.33, dac1: 0 },
    gpio: [{ direction: 'INPUT', pull: 'down', reading: 'low', floatingRead: true }],
    overlays: [{ name: 'box', row: 1, col: 1, width: 2, height: 1, colors: [0x550000] }],
  });
}

const GOLDEN = `{
  "power": {
    "top_rail": 3.300,
    "bottom_rail": 0.000,
    "dac0": 3.330,
    "dac1": 0.000
  },
  "nets": [
    {
      "index": 1,
      "name": "GND",
      "nodes": ["GND", "21"],
      "special": "none"
    },
    {
      "index": 2,
      "name": "Top Rail",
      "nodes": ["TOP_R", "23"],
      "special": "RAIL",
      "voltage": 3.300
    },
    {
      "index": 3,
      "name": "Bottom Rail",
      "nodes": ["BOT_R"],
      "special": "RAIL",
      "voltage": 0.000
    },
    {
      "index": 4,
      "name": "DAC 0",
      "nodes": ["DAC_0", "BUF_IN"],
      "special": "DAC",
      "voltage": 3.330
    },
    {
      "index": 5,
      "name": "DAC 1",
      "nodes": ["DAC_1"],
      "special": "DAC",
      "voltage": 0.000
    },
    {
      "index": 6,
      "name": "Net 6",
      "nodes": ["1", "5", "GP_1"],
      "special": "GPIO",
      "logic": 0
    }
  ],
  "gpio": [
    {
      "pin": 1,
      "net": 6,
      "function": "SIO",
      "direction": "INPUT",
      "pull": "down",
      "reading": "low",
      "floating_read": 1
    },
${[2, 3, 4, 5, 6, 7, 8]
  .map(
    (p) => `    {
      "pin": ${p},
      "net": null,
      "function": "SIO",
      "direction": "INPUT",
      "pull": "none",
      "reading": "unknown",
      "floating_read": 1
    },`,
  )
  .join('\n')}
    {
      "pin": "TX",
      "net": null,
      "function": "SIO",
      "direction": "OUTPUT",
      "pull": "none",
      "reading": "unknown",
      "floating_read": 1
    },
    {
      "pin": "RX",
      "net": null,
      "function": "SIO",
      "direction": "INPUT",
      "pull": "none",
      "reading": "unknown",
      "floating_read": 1
    }
  ],
  "overlays": [
    {"name":"box","row":1,"col":1,"width":2,"height":1,"colors":["550000","000000"]}
  ]
}`;

describe('formatState', () => {
  it('prints exactly like the firmware', () => {
    expect(formatState(sample())).toBe(GOLDEN);
  });

  it('is valid JSON with the same data', () => {
    const doc = JSON.parse(formatState(sample()));
    expect(doc.power.dac0).toBe(3.33);
    expect(doc.nets).toHaveLength(6);
    expect(doc.gpio.map((g: { pin: unknown }) => g.pin)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 'TX', 'RX']);
  });

  it('prints an empty overlay list like the firmware', () => {
    const s = formatState({ ...sample(), overlays: [] });
    expect(s.endsWith('  "overlays": [\n  ]\n}')).toBe(true);
  });

  it('formats floats with three decimals', () => {
    expect(float3(3.3)).toBe('3.300');
    expect(float3(-0.5)).toBe('-0.500');
    expect(float3(1.23456)).toBe('1.235');
    expect(float3(0)).toBe('0.000');
    expect(float3(12)).toBe('12.000');
    expect(float3(Number.NaN)).toBe('null');
  });

  it('reads ADC nets, with a 30 mV deadband, and escapes names as the firmware does', () => {
    const c = new Connections();
    c.connect(110, 7);
    c.connect(111, 8);
    c.setNetName(6, 'say "hi"\nnow');
    const st = buildState(c, { power: { topRail: 0, bottomRail: 0, dac0: 0, dac1: 0 }, adc: [1.5, 0.02] });
    expect(st.nets[5]).toMatchObject({ special: 'ADC', voltage: 1.5 });
    expect(st.nets[6]).toMatchObject({ special: 'ADC', voltage: 0 });
    expect(JSON.parse(formatState(st)).nets[5].name).toBe('say "hi"\nnow');
    // JsonState.cpp:30-35 escapes only `"`, newline and CR: a backslash breaks the document.
    c.setNetName(6, 'a\\z');
    const text = formatState(buildState(c, { power: { topRail: 0, bottomRail: 0, dac0: 0, dac1: 0 } }));
    expect(text).toContain('"name": "a\\z"');
  });
});

describe('parseState', () => {
  it('round-trips what formatState prints', () => {
    const out = parseState(formatState(sample()));
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.state.power).toEqual({ top_rail: 3.3, bottom_rail: 0, dac0: 3.33, dac1: 0 });
    expect(out.state.nets?.map((n) => n.nodes)).toEqual([
      [100, 21],
      [101, 23],
      [102],
      [106, 139],
      [107],
      [1, 5, 131],
    ]);
    expect(out.state.nets?.[1]).toEqual({ index: 2, name: 'Top Rail', nodes: [101, 23], voltage: 3.3 });
    expect(out.state.gpio?.[0]).toEqual({ pin: 1, direction: 'INPUT', pull: 'down', floating_read: 1 });
    expect(out.state.gpio?.[8]?.pin).toBe('TX');
    expect(out.state.overlays).toEqual([
      { name: 'box', row: 1, col: 1, width: 2, height: 1, colors: ['550000', '000000'] },
    ]);
  });

  it('accepts a partial document', () => {
    expect(parseState('{"power": {"top_rail": 5}}')).toEqual({ ok: true, state: { power: { top_rail: 5 } } });
    expect(parseState('{"nets": [{"nodes": ["TOP_R", "d13", "GPIO_2"]}]}')).toEqual({
      ok: true,
      state: { nets: [{ nodes: [101, 83, 132] }] },
    });
  });

  it.each([
    ['', 'Invalid JSON'],
    ['nope', 'Invalid JSON'],
    ['[1]', 'must be an object'],
    ['{}', 'no recognized sections'],
    ['{"power": 3}', 'power must be an object'],
    ['{"power": {"dac0": 9}}', 'out of range'],
    ['{"power": {"dac0": "3"}}', 'power.dac0 must be a number'],
    ['{"nets": {}}', 'nets must be an array'],
    ['{"nets": [{"nodes": ["FOO"]}]}', 'nets[0].nodes[0]: unknown node "FOO"'],
    ['{"nets": [{"nodes": [5]}]}', 'nets[0].nodes[0] must be a string'],
    ['{"nets": [{}]}', 'nets[0].nodes must be an array'],
    ['{"gpio": [{"pin": 9}]}', 'gpio[0].pin'],
    ['{"gpio": [{"pin": 1, "pull": "sideways"}]}', 'gpio[0].pull'],
    ['{"gpio": [{"pin": 1, "direction": "up"}]}', 'gpio[0].direction'],
    [
      '{"overlays": [{"name": "a", "row": 1, "col": 1, "width": 1, "height": 1, "colors": ["zz"]}]}',
      'RRGGBB',
    ],
    ['{"overlays": [{"name": "a", "row": 11, "col": 1, "width": 1, "height": 1, "colors": []}]}', 'row'],
    [
      '{"overlays": [{"name": "a", "row": 1, "col": 1, "width": 1, "height": 1, "colors": ["1", "2"]}]}',
      'pixels',
    ],
  ])('refuses %s', (text, message) => {
    const out = parseState(text);
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error).toContain(message);
  });

  it('refuses oversized input', () => {
    expect(parseState(' '.repeat(1_000_001)).ok).toBe(false);
  });
});
