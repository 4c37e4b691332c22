import { type LossyEvidence, lossySourceEvidence } from './moderation.lossy.ts';

export interface AnalysisTask {
  readonly path: string;
  readonly format: string;
}

/** The entry point of an analysis thread (moderation.pool.ts): one stored file at a time. */
export default function analyse(task: AnalysisTask): Promise<LossyEvidence | null> {
  return lossySourceEvidence(task.path, task.format);
}
