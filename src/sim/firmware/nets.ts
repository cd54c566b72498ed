/**
 * Nets (spec §6.9): names, colours, members, and the printers. The printers write to the main port
 * (CDC0), not to the REPL. Their layout is illustrative, without ANSI colours.
 *
 * `print_nets()` blocks, as on the board: listNets forces its live mode and then waits, redrawing on
 * GPIO/ADC changes, until a byte arrives on the main port or the probe or encoder button is pressed;
 * it never looks at Ctrl-C (NetManager.cpp:1165-1169, 1668-1740). Here it ends on a probe button
 * press; the simulator cannot see main-port bytes or the encoder button while a script runs. A
 * Ctrl-C is left pending, so the simulated watchdog reboots the board (SimBoard `watchdogMs`): that is
 * the only way out, as a reset is on the board. (A host whose clock does not run, the unit-test
 * host, cannot press anything, so there it returns after 60 ms.)
 *
 * Colours follow the firmware: a string goes through parseColorValue (dimmed, the text kept as its
 * name), numbers are stored exactly and named by colorToName (board/colors.ts).
 */
import { type Color, firmwareColorName, firmwareParseColor, fwHsvToRgb } from '../../board/colors.js';
import { MAX_NETS } from '../../board/limits.js';
import { shortName } from '../../board/nodes.js';
import { asInt, asNum } from './args.js';
import { countPaths, primaryPaths } from './connections.js';
import type { Hardware } from './hardware.js';
import type { FirmwareFunctions, FirmwareHost, Json } from './types.js';

const inRange = (n: number): boolean => n >= 0 && n < MAX_NETS;

/** DisplayState keeps colour names in char[32]. */
const COLOR_NAME_MAX = 31;

/** `jl_set_net_color_hsv` (JumperlessMicroPythonAPI.cpp:869-926): h in 0..1 means 0.0-1.0 ranges; s defaults to 255, v to 32. */
export function hsvColor(h: number, s: number, v: number): Color {
  const normalized = h >= 0 && h <= 1;
  const f = Math.fround;
  const byte = (x: number): number => (normalized ? Math.trunc(f(f(x) * 255)) : Math.trunc(f(x))) & 0xff;
  const hh = byte(h);
  const ss = s < 0 ? 255 : byte(s);
  const vv = v < 0 ? 32 : byte(v);
  return { rgb: fwHsvToRgb({ h: hh, s: ss, v: vv }), name: `hsv(${hh},${ss},${vv})` };
}

/** A colour given as a number, stored exactly and named by colorToName. */
const exact = (rgb: number): Color => ({ rgb: rgb & 0xffffff, name: firmwareColorName(rgb) });

/** Sleeps without looking at Ctrl-C (the interrupt flag stays set for the watchdog). */
const nap = new Int32Array(new SharedArrayBuffer(4));
const sleepDeaf = (ms: number): void => {
  Atomics.wait(nap, 0, 0, ms);
};

const CHIPS = 'ABCDEFGHIJKL';

export function netsGroup(hw: Hardware, host: FirmwareHost): FirmwareFunctions {
  const name = (n: number): string | undefined => hw.conns.netName(n);
  // A custom colour is read by net number, allocated or not (JumperlessMicroPythonAPI.cpp:777-816).
  const color = (n: number): number =>
    inRange(n) ? (hw.conns.customColor(n)?.rgb ?? hw.conns.net(n)?.color ?? 0) : 0;
  const colorLabel = (n: number): string => {
    if (!inRange(n)) return 'unknown';
    return hw.conns.customColor(n)?.name ?? firmwareColorName(color(n));
  };
  // Net 0 holds EMPTY_NET alone (NetsToChipConnections.cpp:1297), whose short name is EMPTY.
  const nodes = (n: number): string =>
    n === 0 ? 'EMPTY' : (hw.conns.net(n)?.nodes ?? []).map(shortName).join(',');
  const info = (n: number): Json => {
    const label = name(n);
    if (label === undefined) return null;
    return { name: label, number: n, color: color(n), color_name: colorLabel(n), nodes: nodes(n) };
  };
  const setColor = (n: number, c: Color): boolean => hw.conns.setNetColor(n, c);

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
        p.x[0],
        p.y[0],
        shortName(p.node2),
        chip(c2),
        p.x[1],
        p.y[1],
        'no',
        c1 === c2 ? 'yes' : 'no',
        hw.conns.bridges().find((b) => b.node1 === p.node1 && b.node2 === p.node2)?.duplicates ?? 0,
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
        return setColor(i, exact(((asInt(c) & 0xff) << 16) | ((asInt(g) & 0xff) << 8) | (asInt(b) & 0xff)));
      }
      if (typeof c === 'string') {
        // States.cpp:2407 parseColorValue; the text as typed becomes the name (API.cpp:820-845).
        const rgb = inRange(i) ? firmwareParseColor(c) : undefined;
        return rgb === undefined ? false : setColor(i, { rgb, name: c.slice(0, COLOR_NAME_MAX) });
      }
      if (Array.isArray(c)) {
        const [r = 0, gg = 0, bb = 0] = c.map((x) => asInt(x) & 0xff);
        return setColor(i, exact((r << 16) | (gg << 8) | bb));
      }
      return setColor(i, exact(asInt(c)));
    },
    set_net_color_hsv: (n, h, s = -1, v = -1) => setColor(asInt(n), hsvColor(asNum(h), asNum(s), asNum(v))),
    get_num_nets: () => hw.conns.getNumNets(),
    get_net_nodes: (n) => {
      const i = asInt(n);
      return inRange(i) ? nodes(i) : '';
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
      // The live mode: the probe button ends it (checked after the first 100 ms, NetManager.cpp:1705).
      const clock = host.now();
      for (let waited = 0; ; waited += 20) {
        host.pollInputs();
        if (waited > 100 && hw.probe.button !== 0) break;
        // A host whose clock stands still (the unit-test host) can never press a button: end there.
        if (waited >= 60 && host.now() === clock) break;
        sleepDeaf(20);
      }
      host.writeMain('\n');
      return null;
    },
    print_bridges: printPaths,
    print_paths: printPaths,
    print_crossbars: () => {
      // printChipStateArray draws every chip's 16x8 matrix (ANSI art); here each chip lists the
      // paths that close a crosspoint on it.
      const lines = ['', 'chip\tpaths'];
      primaryPaths(hw).forEach((p, i) => {
        for (const c of new Set(p.chips))
          if (c >= 0) lines.push(`${CHIPS[c]}\t${i}: ${shortName(p.node1)}-${shortName(p.node2)}`);
      });
      host.writeMain(`${lines.join('\n')}\n`);
      return null;
    },
    print_chip_status: () => {
      const used = new Map<number, number>();
      for (const p of primaryPaths(hw))
        for (const c of new Set(p.chips)) if (c >= 0) used.set(c, (used.get(c) ?? 0) + 1);
      const lines = ['', 'chip\tpaths'];
      for (let c = 0; c < CHIPS.length; c++) lines.push(`${CHIPS[c]}\t${used.get(c) ?? 0}`);
      host.writeMain(`${lines.join('\n')}\n`);
      return null;
    },
  };
}
