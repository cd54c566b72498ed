import { describe, expect, it } from 'vitest';
import { BannerWatch, parseBanner } from './rawRepl.js';

const BANNER =
  '\r\nMicroPython v1.28.0-dirty on 2026-06-01; jumperless-v5 v5.7.0.13 with rp2350b\r\nType "help()" for more information.\r\n>>> ';

describe('parseBanner', () => {
  it('reads MicroPython and firmware versions', () => {
    expect(
      parseBanner('MicroPython v1.28.0-dirty on 2026-06-01; jumperless-v5 v5.7.0.13 with rp2350b'),
    ).toEqual({
      line: 'MicroPython v1.28.0-dirty on 2026-06-01; jumperless-v5 v5.7.0.13 with rp2350b',
      micropython: '1.28.0-dirty',
      machine: 'jumperless-v5 v5.7.0.13 with rp2350b',
      firmware: '5.7.0.13',
    });
  });

  it('leaves the firmware out when the machine has no version', () => {
    expect(parseBanner('MicroPython v1.27.0 on 2025-01-01; webassembly with wasm')).not.toHaveProperty(
      'firmware',
    );
  });
});

describe('BannerWatch', () => {
  it('spots a banner split at every point', () => {
    const data = Buffer.from(`junk${BANNER}`, 'latin1');
    for (let cut = 1; cut < data.length; cut++) {
      const watch = new BannerWatch();
      const events = [...watch.push(data.subarray(0, cut)), ...watch.push(data.subarray(cut))];
      expect(events.map((e) => e.kind === 'banner' && e.info.firmware)).toEqual(['5.7.0.13']);
    }
  });

  it('spots a soft reboot', () => {
    const watch = new BannerWatch();
    expect(watch.push(Buffer.from('OK\r\nsoft re'))).toEqual([]);
    expect(watch.push(Buffer.from('boot\r\nraw REPL; CTRL-B to exit\r\n>'))).toEqual([
      { kind: 'softReboot' },
    ]);
  });

  it('ignores LF-only program output that mentions MicroPython', () => {
    const watch = new BannerWatch();
    expect(watch.push(Buffer.from('3.4.0; MicroPython v1.28.0-dirty on 2026-06-01\n'))).toEqual([]);
  });

  it('gives up on a line too long to be a banner and keeps scanning', () => {
    const watch = new BannerWatch();
    expect(watch.push(Buffer.from(`\r\nMicroPython v${'x'.repeat(500)}`))).toEqual([]);
    expect(watch.push(Buffer.from(BANNER))).toHaveLength(1);
  });
});
