// Copies the non-TypeScript files the build needs (the jumperless module's Python half) into dist/.
import { cpSync } from 'node:fs';

cpSync('src/sim/python', 'dist/sim/python', { recursive: true });
