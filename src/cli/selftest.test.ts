/** `selftest` on the virtual board: its report, its exit code, and what a failing probe tells a user. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type ExecProbe, PROBES } from '../board/probes.js';
import { runSelftest, type SelftestReport } from './selftest.js';

function capture(): { out: PassThrough; text: () => string } {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  return { out, text: () => Buffer.concat(chunks).toString('utf8') };
}

const probe = (fields: Partial<ExecProbe>): ExecProbe => ({
  kind: 'exec',
  id: 'test.probe',
  group: 'test',
  code: 'print(6 * 7)',
  expect: '42\n',
  source: 'src/Example.cpp:1',
  why: 'a check of the runner',
  mutates: false,
  fresh: false,
  firmware: ['5.7.0.13', '5.7.11.0'],
  ...fields,
});

describe('selftest', () => {
  it('passes on the virtual board and says what it skipped without --destructive', async () => {
    const { out, text } = capture();
    const code = await runSelftest(
      { device: 'sim', json: true, only: ['repl.sys', 'slots.switch_slot'] },
      out,
    );
    const report = JSON.parse(text()) as SelftestReport;
    expect(code).toBe(0);
    expect(report.firmware).toBe('5.7.11.0');
    expect(report.summary.failed).toBe(0);
    const skipped = report.checks.filter((c) => c.skipped);
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.every((c) => PROBES.find((p) => p.id === c.id)?.mutates)).toBe(true);
  }, 60_000);

  it('exits 1 and prints the probe, its source, what was expected and what came', async () => {
    const { out, text } = capture();
    const wrong = probe({ id: 'test.wrong', expect: '41\n' });
    const code = await runSelftest({ device: 'sim', probes: [probe({}), wrong] }, out);
    expect(code).toBe(1);
    const printed = text();
    expect(printed).toContain('pass  test.probe');
    expect(printed).toContain('FAIL  test.wrong');
    expect(printed).toContain('source:   src/Example.cpp:1');
    expect(printed).toContain('expected: "41\\n"');
    expect(printed).toContain('got:      "42\\n"');
    expect(printed).toMatch(/selftest --json/);
  }, 60_000);

  it('reports an exception of a probe as what came back', async () => {
    const { out, text } = capture();
    const code = await runSelftest({ device: 'sim', json: true, probes: [probe({ code: '1/0' })] }, out);
    const report = JSON.parse(text()) as SelftestReport;
    expect(code).toBe(1);
    expect(report.checks[0]?.got).toMatch(/ZeroDivisionError/);
  }, 60_000);
});
