import { describe, expect, it } from 'vitest';
import {
  FIRMWARE,
  FIRMWARE_VERSIONS,
  firmwareLike,
  knownFirmware,
  missingFunctionsReason,
  NEWEST_FIRMWARE,
  parseFirmwareVersion,
} from './firmware.js';
import { LOGIC_ANALYZER_API, PARTS_AND_BACKGROUND_API, SCAN_AND_AUDIO_API } from './firmwareApi.js';

const older = FIRMWARE['5.7.0.13'];
const newer = FIRMWARE['5.7.11.0'];

describe('firmware releases as data', () => {
  it('has each release with its API surface: 5.7.11 drops every la_* and adds scan, audio, parts and bg', () => {
    expect(FIRMWARE_VERSIONS).toEqual(['5.7.0.13', '5.7.11.0']);
    expect(NEWEST_FIRMWARE).toBe('5.7.11.0');
    expect(older.api.size).toBe(404);
    for (const name of LOGIC_ANALYZER_API) {
      expect(older.api.has(name)).toBe(true);
      expect(newer.api.has(name)).toBe(false);
    }
    for (const name of [...SCAN_AND_AUDIO_API, ...PARTS_AND_BACKGROUND_API]) {
      expect(older.api.has(name)).toBe(false);
      expect(newer.api.has(name)).toBe(true);
    }
    for (const name of [
      'get_node_voltage',
      'get_net_current',
      'get_path_current',
      'place_part',
      'bg_start',
    ]) {
      expect(newer.api.has(name)).toBe(true);
    }
    expect([...newer.api].filter((n) => n.startsWith('la_'))).toEqual([]);
    expect([...newer.api].filter((n) => n.startsWith('usb_audio_')).length).toBeGreaterThan(5);
    expect(newer.api.size).toBe(
      older.api.size -
        LOGIC_ANALYZER_API.length +
        SCAN_AND_AUDIO_API.length +
        PARTS_AND_BACKGROUND_API.length,
    );
  });

  it('cites a source for every behaviour', () => {
    for (const v of FIRMWARE_VERSIONS) {
      const { behaviour, sources } = FIRMWARE[v];
      for (const key of Object.keys(behaviour) as Array<keyof typeof behaviour>) {
        expect(sources[key], `${v} ${key}`).toMatch(/(\w[\w.-]*\/[\w.-]+@[0-9a-f]{7}|shared\/spec\/)/);
      }
    }
    expect(newer.behaviour.heapBytesNoPsram).toBe(64_000);
    expect(older.behaviour.heapBytesNoPsram).toBe(96_000);
  });

  it('knows exact versions only: numbers are not ordered (a 5.8.0 tag predates 5.7.8.1)', () => {
    expect(knownFirmware('5.7.11.0')).toBe(newer);
    expect(knownFirmware('5.8.0')).toBeUndefined();
    expect(knownFirmware('5.7.11.1')).toBeUndefined();
    expect(parseFirmwareVersion('5.7.11')).toBe('5.7.11.0');
    expect(parseFirmwareVersion('v5.7.0.13')).toBe('5.7.0.13');
    expect(parseFirmwareVersion('5.8.0')).toBeUndefined();
  });

  it('recognises a board by the names it lists, also a build between releases', () => {
    expect(firmwareLike(newer.api)[0]).toBe('5.7.11.0');
    expect(firmwareLike(older.api)[0]).toBe('5.7.0.13');
    const between = new Set([...newer.api].filter((n) => !n.startsWith('usb_audio_')));
    expect(firmwareLike(between)[0]).toBe('5.7.11.0');
    expect(firmwareLike(new Set(['print']))).toEqual([]);
  });

  it('says why a firmware lacks what a tool needs, from the names alone', () => {
    expect(missingFunctionsReason(['la_capture_single_sample'])).toMatch(/no logic analyzer/);
    expect(missingFunctionsReason(['get_node_voltage'])).toMatch(/5\.7\.11 has them/);
    expect(missingFunctionsReason(['get_state'])).toMatch(/Update the Jumperless firmware/);
  });
});
