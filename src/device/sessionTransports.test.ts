import { transportsHere } from '../../test/support/ptyAvailable.js';
import { describeSessionOver, type Transport } from '../../test/support/sessionOverTransports.js';

// The session over the in-process stream, TCP and a real pty (the ones over ser2net: sessionTransportsSer2net).
describeSessionOver(transportsHere<Transport>(['in-process', 'tcp', 'pty']));
