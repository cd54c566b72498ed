/**
 * Nets (spec §6.9): names, colours, members, and the printers. The printers write to the main
 * port (CDC0) and return at once: the firmware's `print_nets()` can sit in live mode until a byte
 * or a button arrives, which the simulator does not reproduce (nothing would wake it from a
 * script, and a wedged script helps nobody). Their layout is illustrative, without ANSI colours.
 */
import { type Color, colorName, parseColor } from '../../board/colors.js';
import { MAX_NETS } from '../../board/limits.js';
import { shortName } from '../../board/nodes.js';
import { asInt, asNum } from './args.js';
import { countPaths, primaryPaths } from './connections.js';
import type { Hardware } from './hardware.js';
import type { FirmwareFunctions, FirmwareHost, Json } from './types.js';

const inRange = (n: number): boolean => n >= 0 && n < MAX_NETS;

/** FastLED-style HSV (all 0-255) to 0xRRGGBB. */
export function hsvToRgb(h: number, s: number, v: number): number {
  const sector = (h / 256) * 6;
  const i = Math.floor(sector) % 6;
  const f = sector - Math.floor(sector);
  const sv = s / 255;
  const p = v * (1 - sv);
  const q = v * (1 - sv * f);
  const t = v * (1 - sv * (1 - f));
  const [r, g, b] = [
    [v, t, p],
    [q, v, p],
    [p, v, t],
    [p, q, v],
    [t, p, v],
    [v, p, q],
  ][i] as [number, number, number];
  return (Math.round(r) << 16) | (Math.round(g) << 8) | Math.round(b);
}

/** `jl_set_net_color_hsv`: h <= 1.0 means 0.0-1.0 ranges; s defaults to 255 and v to 32. */
export function hsvColor(h: number, s: number, v: number): Color {
  const normalized = h >= 0 && h <= 1;
  const byte = (x: number, scale: boolean): number => (scale ? Math.trunc(x * 255) : Math.trunc(x)) & 0xff;
  const hh = byte(h, normalized);
  const ss = s < 0 ? 255 : byte(s, normalized);
  const vv = v < 0 ? 32 : byte(v, normalized);
  return { rgb: hsvToRgb(hh, ss, vv), name: `hsv(${hh},${ss},${vv})` };
}

const CHIPS = 'ABCDEFGHIJKL';

export function netsGroup(hw: Hardware, host: FirmwareHost): FirmwareFunctions {
  const name = (n: number): string | undefined => {
    if (!inRange(n)) return undefined;
    // Net 0 is the firmware's placeholder entry.
    return n === 0 ? 'Empty Net' : hw.conns.netName(n);
  };
  const color = (n: number): number => (inRange(n) ? (hw.conns.net(n)?.color ?? 0) : 0);
  const colorLabel = (n: number): string =>
    inRange(n) ? (hw.conns.net(n)?.colorName ?? 'black') : 'unknown';
  const nodes = (n: number): string => (hw.conns.net(n)?.nodes ?? []).map(shortName).join(',');
  const info = (n: number): Json => {
    const label = name(n);
    if (label === undefined) return null;
    return {
      name: label,
      number: n,
      color: color(n),
      color_name: colorLabel(n),
      nodes: n === 0 ? '' : nodes(n),
    };
  };
  const setColor = (n: number, c: Color): boolean => {
    if (!inRange(n)) return false;
    hw.conns.setNetColor(n, c);
    return true;
  };

  const printPaths = (): null => {
    const rows = primaryPaths(hw).map((p, i) => {
      const [c1 = -1, c2 = c1] = p.chips.filter((c) => c >= 0);
      const chip = (c: number): string => CHIPS[c] ?? '-';
      const kind = (id: number): string => (id <= 60 ? 'BB' : id <= 99 ? 'NANO' : 'SF');
      return [
        i,
        p.net,
        shortName(p.node1),
        chip(c1),
        -1,
        -1,
        shortName(p.node2),
        chip(c2),
        -1,
        -1,
        'no',
        c1 === c2 ? 'yes' : 'no',
        hw.conns.bridge(i)?.duplicates ?? 0,
        `${kind(p.node1)}to${kind(p.node2)}`,
      ].join('\t');
    });
    host.writeMain(
      [
        '',
        `numberOfPaths: ${countPaths(hw, true)}`,
        `numberOfNets: ${hw.conns.getNumNets() - 1}`,
        '',
        'path\tnet\tnode1\tchip0\tx0\ty0\tnode2\tchip1\tx1\ty1\taltPath\tsameChp\tdup\tpathType',
        ...rows,
        '',
      ].join('\n'),
    );
    return null;
  };

  return {
    get_net_name: (n) => name(asInt(n)) ?? null,
    set_net_name: (n, label) => {
      const i = asInt(n);
      if (inRange(i)) hw.conns.setNetName(i, typeof label === 'string' && label !== '' ? label : null);
      return null;
    },
    get_net_color: (n) => color(asInt(n)),
    get_net_color_name: (n) => colorLabel(asInt(n)),
    set_net_color: (n, c, g, b) => {
      const i = asInt(n);
      if (g !== undefined) {
        const rgb = ((asInt(c) & 0xff) << 16) | ((asInt(g) & 0xff) << 8) | (asInt(b) & 0xff);
        return setColor(i, { rgb, name: colorName(rgb) });
      }
      if (typeof c === 'string') {
        const parsed = parseColor(c);
        return inRange(i) && parsed.ok ? setColor(i, parsed.color) : false;
      }
      if (Array.isArray(c)) {
        const [r = 0, gg = 0, bb = 0] = c.map((x) => asInt(x) & 0xff);
        const rgb = (r << 16) | (gg << 8) | bb;
        return setColor(i, { rgb, name: colorName(rgb) });
      }
      const rgb = asInt(c) & 0xffffff;
      return setColor(i, { rgb, name: colorName(rgb) });
    },
    set_net_color_hsv: (n, h, s = -1, v = -1) => setColor(asInt(n), hsvColor(asNum(h), asNum(s), asNum(v))),
    get_num_nets: () => hw.conns.getNumNets(),
    get_net_nodes: (n) => {
      const i = asInt(n);
      return inRange(i) && i > 0 ? nodes(i) : '';
    },
    get_net_info: (n) => info(asInt(n)),
    get_all_nets: () => Array.from({ length: hw.conns.getNumNets() }, (_, i) => info(i)),
    print_nets: () => {
      const lines = ['', 'Index\tName\t\tVoltage\t    Nodes'];
      const power = [0, hw.power.topRail, hw.power.bottomRail, hw.power.dac0, hw.power.dac1];
      for (const net of hw.conns.nets()) {
        if (net.index === 6) lines.push('', 'Index\tName\t\tColor\t    Nodes');
        const label = net.name.length < 8 ? `${net.name}\t` : net.name;
        const middle =
          net.index <= 5
            ? `${net.index === 1 ? '0' : (power[net.index - 1] ?? 0).toFixed(2)} V`.padEnd(9)
            : net.colorName.padEnd(10);
        lines.push(`${net.index}\t ${label}\t ${middle} ${net.nodes.map(shortName).join(',')}`);
      }
      host.writeMain(`${lines.join('\n')}\n`);
      return null;
    },
    print_bridges: printPaths,
    print_paths: printPaths,
    print_crossbars: () => {
      // printChipStateArray draws every chip's 16x8 matrix; the simulator does not route through
      // chips, so it lists which paths each chip carries.
      const lines = ['', 'chip\tpaths'];
      primaryPaths(hw).forEach((p, i) => {
        for (const c of p.chips)
          if (c >= 0) lines.push(`${CHIPS[c]}\t${i}: ${shortName(p.node1)}-${shortName(p.node2)}`);
      });
      host.writeMain(`${lines.join('\n')}\n`);
      return null;
    },
    print_chip_status: () => {
      const used = new Map<number, number>();
      for (const p of primaryPaths(hw))
        for (const c of p.chips) if (c >= 0) used.set(c, (used.get(c) ?? 0) + 1);
      const lines = ['', 'chip\tpaths'];
      for (let c = 0; c < CHIPS.length; c++) lines.push(`${CHIPS[c]}\t${used.get(c) ?? 0}`);
      host.writeMain(`${lines.join('\n')}\n`);
      return null;
    },
  };
}
