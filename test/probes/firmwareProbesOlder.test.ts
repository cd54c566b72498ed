import { FIRMWARE_VERSIONS, NEWEST_FIRMWARE } from '../../src/board/firmware.js';
import { describeProbeRuns } from './probeRun.js';

// Every release but the newest, over TCP (the transport does not change what the firmware answers).
describeProbeRuns(FIRMWARE_VERSIONS.filter((v) => v !== NEWEST_FIRMWARE).map((v) => [v, 'tcp']));
