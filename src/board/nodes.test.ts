import { describe, expect, it } from 'vitest';
import {
  ALL_NODES,
  BOTTOM_RAIL,
  BUFFER_IN,
  DAC0,
  GND,
  GPIO_1,
  GPIO_8,
  isBridgeable,
  LOGO_PAD_TOP,
  NO_PAD,
  nanoA,
  nanoD,
  nodeInfo,
  padName,
  parseShortName,
  printName,
  resolveNode,
  resolvePad,
  shortName,
  TOP_RAIL,
  UART_TX,
  yamlName,
} from './nodes.js';

describe('print names (spec §6.1: the first alias)', () => {
  it.each([
    [1, '1'],
    [60, '60'],
    [83, 'NANO_D13'],
    [70, 'NANO_D0'],
    [86, 'NANO_A0'],
    [131, 'RP_GPIO_1'],
    [116, 'RP_UART_TX'],
    [117, 'RP_UART_RX'],
    [100, 'GND'],
    [101, 'TOP_RAIL'],
    [102, 'BOTTOM_RAIL'],
    [106, 'DAC0'],
    [110, 'ADC0'],
    [115, 'ADC7'],
    [108, 'ISENSE_PLUS'],
    [139, 'ROUTABLE_BUFFER_IN'],
    [142, 'LOGO_PAD_TOP'],
  ])('%i prints as %s', (id, name) => {
    expect(printName(id)).toBe(name);
  });

  it('prints an empty string for ids with no name', () => {
    expect(printName(65)).toBe('');
    expect(printName(0)).toBe('');
  });
});

describe('short names (net listings, §6.2)', () => {
  it.each([
    [GND, 'GND'],
    [TOP_RAIL, 'TOP_R'],
    [BOTTOM_RAIL, 'BOT_R'],
    [DAC0, 'DAC_0'],
    [107, 'DAC_1'],
    [108, 'I_POS'],
    [109, 'I_NEG'],
    [110, 'ADC_0'],
    [115, 'ADC_7'],
    [UART_TX, 'UART_Tx'],
    [117, 'UART_Rx'],
    [GPIO_1, 'GP_1'],
    [GPIO_8, 'GP_8'],
    [BUFFER_IN, 'BUF_IN'],
    [140, 'BUF_OUT'],
    [83, 'D13'],
    [86, 'A0'],
    [93, 'A7'],
    [17, '17'],
  ])('%i is %s and parses back', (id, name) => {
    expect(shortName(id)).toBe(name);
    expect(parseShortName(name)).toBe(id);
  });

  it('every node short name and yaml name parses back to its id', () => {
    for (const n of ALL_NODES) {
      expect(parseShortName(n.shortName)).toBe(n.id);
      expect(parseShortName(n.yamlName)).toBe(n.id);
    }
  });

  it('parseShortName accepts node aliases too, and refuses unknowns', () => {
    expect(parseShortName('gpio_1')).toBe(GPIO_1);
    expect(parseShortName('uart_tx')).toBe(UART_TX);
    expect(parseShortName('NOPE')).toBeUndefined();
    expect(parseShortName('')).toBeUndefined();
    expect(parseShortName('65')).toBeUndefined();
  });

  it('slot YAML names', () => {
    expect(yamlName(BUFFER_IN)).toBe('BUFFER_IN');
    expect(yamlName(DAC0)).toBe('DAC0');
    expect(yamlName(nanoD(5))).toBe('NANO_D5');
    expect(yamlName(GPIO_1)).toBe('RP_GPIO_1');
  });
});

describe('resolveNode', () => {
  it('resolves every alias of every node, in any case', () => {
    for (const n of ALL_NODES) {
      for (const alias of n.aliases) {
        expect(resolveNode(alias), alias).toBe(n.id);
        expect(resolveNode(alias.toLowerCase()), alias).toBe(n.id);
      }
    }
  });

  it('has no alias shared by two nodes', () => {
    const seen = new Map<string, number>();
    for (const n of ALL_NODES) {
      for (const a of n.aliases) {
        const key = a.toUpperCase();
        expect(seen.get(key) ?? n.id, a).toBe(n.id);
        seen.set(key, n.id);
      }
    }
  });

  it.each([
    ['TOP_RAIL', 101],
    ['T_RAIL', 101],
    ['top_r', 101],
    ['T_R', 101],
    ['B_RAIL', 102],
    ['D13', 83],
    ['nano_d13', 83],
    ['GPIO_1', 131],
    ['GP1', 131],
    ['GPIO_20', 131],
    ['GPIO_27', 138],
    ['gp_8', 138],
    ['PROBE', 115],
    ['Tx', 116],
    ['BUF_IN', 139],
    ['LOGO_PAD_TOP', 142],
    ['Dac0', 106],
    ['GROUND', 100],
  ])('%s -> %i', (name, id) => {
    expect(resolveNode(name)).toBe(id);
  });

  it('takes digit strings 1..200 and ints as they are', () => {
    expect(resolveNode('1')).toBe(1);
    expect(resolveNode('200')).toBe(200);
    expect(resolveNode('65')).toBe(65);
    expect(resolveNode('0')).toBeUndefined();
    expect(resolveNode('201')).toBeUndefined();
    expect(resolveNode(131)).toBe(131);
    expect(resolveNode(9999)).toBe(9999);
    expect(resolveNode(1.5)).toBeUndefined();
  });

  it('refuses unknown names', () => {
    expect(resolveNode('NOT_A_NODE')).toBeUndefined();
    expect(resolveNode('')).toBeUndefined();
    expect(resolveNode('x'.repeat(100))).toBeUndefined();
  });
});

describe('bridgeable set (FileParsing.cpp:2033-2070)', () => {
  it.each([1, 60, 70, 93, 100, 117, 131, 140, 150, 181])('%i is bridgeable', (id) => {
    expect(isBridgeable(id)).toBe(true);
  });
  // 84, 103-105 and 115 are in the id ranges but on no V5 crossbar lane.
  it.each([0, 61, 69, 84, 94, 99, 103, 104, 105, 115, 118, 126, 130, 141, 142, 149, 182, -1, 1.5])(
    '%s is not',
    (id) => {
      expect(isBridgeable(id)).toBe(false);
    },
  );
  it('agrees with the table', () => {
    for (const n of ALL_NODES) expect(n.bridgeable).toBe(isBridgeable(n.id));
  });
});

describe('node info', () => {
  it('has kinds', () => {
    expect(nodeInfo(5)?.kind).toBe('row');
    expect(nodeInfo(nanoA(3))?.kind).toBe('nano');
    expect(nodeInfo(GND)?.kind).toBe('special');
    expect(nodeInfo(GPIO_1)?.kind).toBe('gpio');
    expect(nodeInfo(UART_TX)?.kind).toBe('uart');
    expect(nodeInfo(LOGO_PAD_TOP)?.kind).toBe('pad');
    expect(nodeInfo(150)?.kind).toBe('fake_gpio');
    expect(nodeInfo(181)?.printName).toBe('FAKE_GP_IN_23');
    expect(nodeInfo(65)).toBeUndefined();
  });
});

describe('probe pads', () => {
  it('prints pads like ProbePad', () => {
    // modjumperless.c:561, 721: the pad table names rows PAD_1..PAD_60 before the numeric fallback.
    expect(padName(12)).toBe('PAD_12');
    expect(padName(NO_PAD)).toBe('NO_PAD');
    expect(padName(83)).toBe('NANO_D13');
    expect(padName(TOP_RAIL)).toBe('TOP_RAIL');
    expect(padName(LOGO_PAD_TOP)).toBe('LOGO_PAD_TOP');
    expect(padName(GND)).toBe('UNKNOWN_PAD');
  });
  it('resolves pad aliases', () => {
    expect(resolvePad('d13_pad')).toBe(83);
    expect(resolvePad('LOGO_PAD_TOP')).toBe(142);
    expect(resolvePad('top_rail_pad')).toBe(101);
    expect(resolvePad('PAD_7')).toBe(7);
    expect(resolvePad('7')).toBe(7);
    expect(resolvePad('NO_PAD')).toBe(NO_PAD);
    expect(resolvePad('GND')).toBeUndefined();
    expect(resolvePad('61')).toBeUndefined();
  });
});
