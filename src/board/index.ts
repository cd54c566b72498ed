/** The Jumperless V5 as pure data and functions: nodes, bridges and nets, state JSON, slots, limits. */
export * from './colors.js';
export * from './connections.js';
export * from './limits.js';
export * from './nodes.js';
export * from './slots.js';
export * from './state.js';
