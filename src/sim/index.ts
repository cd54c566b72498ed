export { SimBoard, type SimBoardOptions, type Wedge } from './simBoard.js';
export type { SimPort } from './simPort.js';
export { PORT_NAMES, type PortName } from './workerProtocol.js';
