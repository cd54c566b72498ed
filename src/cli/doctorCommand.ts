/**
 * `jumperless-mcp doctor [--device D] [--json] [--no-probe]`: what stands between this machine and
 * a working board, each finding with its fix: the board on USB and the port chosen, permissions,
 * a program holding the port, ModemManager and the udev rule, the optional pty helpers, then
 * (unless --no-probe) whether the REPL answers and which tool groups its firmware is too old for.
 * Exit 1 when something fails.
 */
import { type DoctorRoots, type Finding, type Identity, machineFindings } from './doctor.js';
import { probeFirmware } from './firmwareProbeCommand.js';
import { CliToolError } from './toolRunner.js';

export interface DoctorOptions {
  device: string;
  json?: boolean;
  /** commander's --no-probe: false skips opening the board. */
  probe?: boolean;
}

export interface DoctorSeams {
  roots?: DoctorRoots;
  identity?: Identity;
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  probeTimeoutMs?: number;
}

export async function doctorFindings(options: DoctorOptions, seams: DoctorSeams = {}): Promise<Finding[]> {
  const { findings, ports } = await machineFindings({
    device: options.device,
    ...(seams.roots ? { roots: seams.roots } : {}),
    ...(seams.identity ? { identity: seams.identity } : {}),
    ...(seams.platform ? { platform: seams.platform } : {}),
    ...(seams.env ? { env: seams.env } : {}),
  });
  if (options.probe === false) return findings;
  // Opening a port that cannot be opened, or that another program holds, tells nothing more.
  const blocked = findings.some(
    (f) => f.severity === 'fail' && ['exists', 'permissions', 'port_held', 'board'].includes(f.check),
  );
  if (blocked) {
    findings.push({
      check: 'repl',
      severity: 'info',
      message: 'the REPL was not tried: fix the above first',
    });
    return findings;
  }
  const devices = ports.length > 1 ? ports : [options.device];
  for (const device of devices)
    findings.push(...(await replFindings(device, seams.probeTimeoutMs ?? 15_000)));
  return findings;
}

async function replFindings(device: string, timeoutMs: number): Promise<Finding[]> {
  try {
    const report = await probeFirmware(device, timeoutMs);
    const findings: Finding[] = [
      {
        check: 'repl',
        severity: 'ok',
        message: `${device}: the raw REPL answers (firmware ${report.firmware ?? 'unknown'}, MicroPython ${report.micropython}, ${report.functions.length} jumperless functions)`,
      },
    ];
    for (const group of report.groups.filter((g) => g.unusable.length > 0)) {
      const missing = [...new Set(group.unusable.flatMap((u) => u.missing))];
      findings.push({
        check: 'firmware',
        severity: 'warn',
        message: `the firmware is too old for ${group.unusable.length} of the ${group.tools} ${group.group} tools (${group.unusable.map((u) => u.tool).join(', ')}): it lacks ${missing.join(', ')}`,
        fix: 'update the Jumperless firmware (5.7 or later); until then those tools answer unsupported_firmware',
      });
    }
    if (findings.length === 1)
      findings.push({
        check: 'firmware',
        severity: 'ok',
        message: 'the firmware has every function the tools use',
      });
    return findings;
  } catch (error) {
    const code = error instanceof CliToolError ? error.code : undefined;
    const message = error instanceof Error ? error.message : String(error);
    if (code === 'no_repl') {
      return [
        {
          check: 'repl',
          severity: 'fail',
          message: `${device} answers, but not as a MicroPython raw REPL (the board's menu port CDC0, or another device)`,
          fix: 'the REPL is CDC2, USB interface 4: run jumperless-mcp detect and use the port it names, or --device auto',
        },
      ];
    }
    return [
      {
        check: 'repl',
        severity: 'fail',
        message: `${device}: the REPL does not answer (${code ? `${code}: ` : ''}${message})`,
        fix: /^(tcp|socket|rfc2217):\/\//i.test(device)
          ? 'check the exporter on that machine: ser2net runs and serves this port (max-connections: 1, no kickolduser), and no other client (a console, another server) holds it; then jumperless-mcp exec --device ' +
            device +
            ' "print(1)"'
          : 'unplug and replug the board; if a script runs on it, stop it from the board\'s menu; then jumperless-mcp exec "print(1)"',
      },
    ];
  }
}

const MARK: Record<Finding['severity'], string> = { ok: 'ok  ', info: 'info', warn: 'WARN', fail: 'FAIL' };

export async function runDoctor(
  options: DoctorOptions,
  io: { stdout: NodeJS.WritableStream },
  seams: DoctorSeams = {},
): Promise<number> {
  const findings = await doctorFindings(options, seams);
  const failed = findings.some((finding) => finding.severity === 'fail');
  if (options.json) io.stdout.write(`${JSON.stringify({ ok: !failed, findings }, null, 2)}\n`);
  else {
    for (const finding of findings) {
      io.stdout.write(`${MARK[finding.severity]}  ${finding.message}\n`);
      if (finding.fix) io.stdout.write(`      fix: ${finding.fix}\n`);
    }
    const problems = findings.filter((f) => f.severity === 'fail' || f.severity === 'warn').length;
    io.stdout.write(
      problems === 0 ? 'Nothing to fix.\n' : `${problems} thing${problems === 1 ? '' : 's'} to fix.\n`,
    );
  }
  return failed ? 1 : 0;
}
