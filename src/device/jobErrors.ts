/** The errors a job ends with, and the short name of a job that their messages use. */
import { DeviceError } from './errors.js';
import { parsePythonError } from './pythonError.js';
import type { ExecOutcome } from './replDriver.js';
import type { ExecResult, Job } from './sessionTypes.js';

/** What a job runs, for messages: its first line, shortened. Only built when needed. */
export function summary(job: Job): string {
  const lines = job.source.trim().split('\n');
  const first = (lines[0] ?? '').trim();
  const short = first.length > 80 ? `${first.slice(0, 77)}...` : first;
  return lines.length > 1 ? `${short} (+${lines.length - 1} lines)` : short;
}

export function pythonError(outcome: ExecOutcome, softReset?: ExecResult['softReset']): DeviceError {
  const info = parsePythonError(outcome.stderr);
  return new DeviceError('python_error', `${info.type}: ${info.message}`.replace(/: $/, ''), {
    type: info.type,
    pythonMessage: info.message,
    traceback: info.traceback,
    stdout: outcome.stdout,
    ...(softReset ? { softReset } : {}),
  });
}

export function closedError(): DeviceError {
  return new DeviceError('disconnected', 'the device session is closed', { closed: true });
}

export function canceledError(job: Job, when: string): DeviceError {
  return new DeviceError('canceled', `job "${summary(job)}" was canceled ${when}`, {
    interrupted: summary(job),
  });
}
