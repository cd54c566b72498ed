import { describe, it } from 'vitest';
import { PTY_MISSING } from '../../test/support/ptyAvailable.js';
import { SER2NET_MISSING } from '../../test/support/ser2net.js';
import { describeSessionOver, OVER_SER2NET } from '../../test/support/sessionOverTransports.js';

// The session over the board's pty exported by Debian's ser2net, as a lab would: RFC 2217 and raw TCP.
if (OVER_SER2NET.length === 0) {
  describe.skip(`session over ser2net: ${SER2NET_MISSING ?? PTY_MISSING}`, () => it('runs', () => {}));
} else describeSessionOver(OVER_SER2NET);
