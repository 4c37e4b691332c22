import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { LossyEvidence } from '../../db/schema.ts';
import type { AnalysisTask } from './moderation.worker.ts';

/**
 * Audio analysis (decoding excerpts, FFTs) runs in worker threads, so that no request of any label
 * waits while a long track is examined. One pool per process, created at the first analysis.
 *
 * Sized for a small box: one core is left to the event loop (on 2 cores, one analysis thread).
 * An idle thread ends after IDLE_MS, and piscina unrefs idle threads, so the pool never keeps the
 * process alive; `closeAudioAnalysis` ends it at shutdown.
 */
const THREADS = Math.max(1, Math.min(2, availableParallelism() - 1));
const IDLE_MS = 60_000;
/** Excerpts are bounded (moderation.lossy.ts); this stops a thread that grows past them anyway. */
const MAX_HEAP_MB = 128;

/** The worker file sits beside this one: compiled in dist/ (.js), or a source in src/ (.ts) run through tsx. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const WORKER = new URL(`./moderation.worker.${FROM_SOURCES ? 'ts' : 'js'}`, import.meta.url).href;
/**
 * Threads do not inherit loader hooks registered in code, as bin/labeldesk.js registers tsx, so
 * each thread of the sources imports tsx's loader itself; by absolute URL, whatever the working
 * directory. This replaces the inherited flags, so a thread started under `node --import tsx` loads
 * it once too, and a compiled thread (which needs no loader) none at all.
 */
const THREAD_FLAGS = FROM_SOURCES ? ['--import', import.meta.resolve('tsx')] : [];

let pool: Piscina<AnalysisTask, LossyEvidence | null> | null = null;

/**
 * A thread that fails outside a task (its file does not load) makes piscina emit 'error', which
 * would end the process, while the task waiting for that thread would wait forever. The pool is
 * ended instead: the waiting analyses fail (the job queue retries them) and the next one starts a
 * new pool.
 */
function analysisPool(): Piscina<AnalysisTask, LossyEvidence | null> {
  if (pool) return pool;
  const created = new Piscina<AnalysisTask, LossyEvidence | null>({
    filename: WORKER,
    execArgv: THREAD_FLAGS,
    minThreads: 0,
    maxThreads: THREADS,
    idleTimeout: IDLE_MS,
    resourceLimits: { maxOldGenerationSizeMb: MAX_HEAP_MB },
  });
  created.on('error', () => {
    if (pool === created) pool = null;
    void created.destroy();
  });
  pool = created;
  return created;
}

/** Whether a stored WAV or FLAC was converted from a lossy file (moderation.lossy.ts), off the event loop. */
export function lossySourceEvidenceOffThread(path: string, format: string): Promise<LossyEvidence | null> {
  return analysisPool().run({ path, format });
}

/** Ends the analysis threads (server shutdown); the next analysis starts a new pool. */
export async function closeAudioAnalysis(): Promise<void> {
  const closing = pool;
  pool = null;
  await closing?.destroy();
}
