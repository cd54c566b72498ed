import { NEWEST_FIRMWARE } from '../../src/board/firmware.js';
import { describeProbeRuns } from './probeRun.js';

describeProbeRuns([[NEWEST_FIRMWARE, 'tcp']]);
