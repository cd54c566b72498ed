import { describe, it } from 'vitest';
import { NEWEST_FIRMWARE } from '../../src/board/firmware.js';
import { PTY_MISSING } from '../support/ptyAvailable.js';
import { describeProbeRuns } from './probeRun.js';

// The newest release over a pseudo-terminal opened with serialport, where this machine can make one.
if (PTY_MISSING) describe.skip(`firmware probes over a pty: ${PTY_MISSING}`, () => it('run', () => {}));
else describeProbeRuns([[NEWEST_FIRMWARE, 'pty']]);
