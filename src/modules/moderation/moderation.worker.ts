import { constants, setPriority } from 'node:os';
import type { LossyEvidence } from '../../db/schema.ts';
import { lossySourceEvidence } from './moderation.lossy.ts';

// Analysis is background work. On Linux a thread's nice value is its own (setpriority(2), BUGS),
// so this thread gives way to the event loop's thread whenever both want a core.
setPriority(constants.priority.PRIORITY_LOW);

export interface AnalysisTask {
  readonly path: string;
  readonly format: string;
}

/** The entry point of an analysis thread (moderation.pool.ts): one stored file at a time. */
export default function analyse(task: AnalysisTask): Promise<LossyEvidence | null> {
  return lossySourceEvidence(task.path, task.format);
}
