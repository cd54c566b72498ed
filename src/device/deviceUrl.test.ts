import { describe, expect, it } from 'vitest';
import { createLink, formatDeviceUrl, parseDeviceUrl } from './deviceUrl.js';

describe('parseDeviceUrl', () => {
  it.each([
    ['auto', { kind: 'auto' }],
    ['', { kind: 'auto' }],
    ['auto:1-3.1', { kind: 'auto', location: '1-3.1' }],
    ['/dev/ttyACM2', { kind: 'serial', path: '/dev/ttyACM2' }],
    ['COM5', { kind: 'serial', path: 'COM5' }],
    ['serial:/dev/x', { kind: 'serial', path: '/dev/x' }],
    ['tcp://localhost:7002', { kind: 'tcp', host: 'localhost', port: 7002 }],
    ['tcp://[::1]:7002', { kind: 'tcp', host: '::1', port: 7002 }],
    // pyserial's name for a raw TCP port: the same link as tcp://.
    ['socket://bench-3:4001', { kind: 'tcp', host: 'bench-3', port: 4001 }],
    ['rfc2217://bench-3:4002', { kind: 'rfc2217', host: 'bench-3', port: 4002 }],
    ['RFC2217://[fe80::1]:4002/', { kind: 'rfc2217', host: 'fe80::1', port: 4002 }],
    ['sim', { kind: 'sim' }],
    ['sim:parts.json', { kind: 'sim', partsFile: 'parts.json' }],
  ])('reads %s', (text, url) => {
    expect(parseDeviceUrl(text)).toEqual(url);
    expect(parseDeviceUrl(formatDeviceUrl(parseDeviceUrl(text)))).toEqual(url);
  });

  it.each([
    'tcp://host',
    'tcp://host:0',
    'tcp://host:99999',
    'http://x:1',
    'rfc2217://host',
    'telnet://h:23',
  ])('refuses %s', (text) => {
    expect(() => parseDeviceUrl(text)).toThrow(/cannot use/);
  });
});

describe('createLink', () => {
  it('needs a simulator factory for sim URLs', async () => {
    await expect(createLink('sim')).rejects.toThrow(/simulator is not available/);
  });

  it('names links after their address', async () => {
    expect((await createLink('tcp://127.0.0.1:9')).id).toBe('tcp://127.0.0.1:9');
    expect((await createLink('socket://127.0.0.1:9')).id).toBe('tcp://127.0.0.1:9');
    expect((await createLink('rfc2217://[::1]:9')).id).toBe('rfc2217://[::1]:9');
    expect((await createLink('/dev/ttyACM2')).id).toBe('/dev/ttyACM2');
  });

  it('reports a refused TCP connection as not found', async () => {
    const link = await createLink('tcp://127.0.0.1:9');
    await expect(link.open()).rejects.toMatchObject({ code: 'not_found' });
    await expect((await createLink('rfc2217://127.0.0.1:9')).open()).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('cannot connect to rfc2217://127.0.0.1:9'),
    });
  });

  it('reports a missing serial path as not found', async () => {
    const link = await createLink('/dev/does-not-exist-jl');
    await expect(link.open()).rejects.toMatchObject({ code: 'not_found' });
  });
});
