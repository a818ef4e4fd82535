import { join } from 'node:path';
import { loadYamlConfig } from '@rloop/bus';
import { LoopConfig } from '@rloop/domain';

/** Injection token of the loop configuration (config/loop.yaml) the projections' heuristics use. */
export const LOOP_CONFIG = Symbol.for('rloop.journal.loop-config');

/** Parses config/loop.yaml once, at start (a bad threshold fails the start, naming it). */
export async function loadLoopConfig(configDir: string): Promise<LoopConfig> {
  return loadYamlConfig(join(configDir, 'loop.yaml'), LoopConfig);
}
