import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { promisify } from 'node:util';

/** Everything the bench starts or calls listens here and nowhere else. */
export const LOOPBACK = '127.0.0.1';

const CLI_TIMEOUT_MS = 60_000;
const READY_TIMEOUT_MS = 30_000;
const READY_POLL_MS = 100;
const STOP_GRACE_MS = 5_000;

const execFileAsync = promisify(execFile);

export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  readonly logFile: string;
}

/**
 * The kernel picks a free port, which is released for the child to bind. Another process could take
 * it in between; on a bench machine that race is rare enough to accept over parsing the child's logs.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, LOOPBACK, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('the kernel assigned no port'))));
    });
  });
}

/**
 * Runs a Node script with both output streams appended to `logFile`, so a chatty child never blocks
 * on a pipe. With `ipc`, the child also gets a message channel (`process.send` on its side).
 */
export function startNodeChild(
  name: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string; ipc?: boolean },
): Child {
  const fd = openSync(options.logFile, 'a');
  try {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: options.ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
    });
    return { name, process: child, logFile: options.logFile };
  } finally {
    // The child holds its own duplicate of the descriptor.
    closeSync(fd);
  }
}

function hasExited(child: Child): boolean {
  return child.process.exitCode !== null || child.process.signalCode !== null;
}

export function logTail(logFile: string, lines = 20): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until the child answers any HTTP status; fails early, with its log, if it exits instead. */
export function waitUntilAnswering(
  child: Child,
  url: string,
  headers: Record<string, string>,
): Promise<void> {
  return waitUntil(child, url, async () => {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
  });
}

/**
 * Polls `probe` until it resolves (the child answers `what`); fails early, with its log, if the
 * child exits instead.
 */
export async function waitUntil(child: Child, what: string, probe: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (hasExited(child)) {
      throw new Error(`${child.name} exited before answering; log tail:\n${logTail(child.logFile)}`);
    }
    try {
      await probe();
      return;
    } catch {
      await sleep(READY_POLL_MS);
    }
  }
  throw new Error(`${child.name} did not answer ${what} within ${READY_TIMEOUT_MS} ms`);
}

/** SIGTERM for a clean shutdown, SIGKILL if it takes longer than the grace period. */
export async function stopChild(child: Child): Promise<void> {
  if (hasExited(child)) return;
  const exited = once(child.process, 'exit');
  child.process.kill('SIGTERM');
  const timer = sleep(STOP_GRACE_MS).then(() => 'timeout' as const);
  if ((await Promise.race([exited, timer])) !== 'timeout') return;
  child.process.kill('SIGKILL');
  await exited;
}

/** For a signal handler, where nothing asynchronous gets to run. */
export function killChildNow(child: Child): void {
  if (!hasExited(child)) child.process.kill('SIGKILL');
}

/** Peak resident set size (Linux `VmHWM`) in kB, or null where /proc is not available. */
export function peakRssKb(child: Child): number | null {
  const pid = child.process.pid;
  if (pid === undefined || hasExited(child)) return null;
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Runs a Node script to completion and returns its stdout; its stderr goes into the error when it fails. */
export async function runNodeScript(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<string> {
  try {
    const { stdout } = await execFileAsync(process.execPath, args, {
      cwd: options.cwd,
      env: options.env,
      timeout: CLI_TIMEOUT_MS,
    });
    return stdout;
  } catch (error) {
    const stderr = error instanceof Error && 'stderr' in error ? String(error.stderr).trim() : '';
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new Error(`node ${args.join(' ')} failed: ${stderr || reason}`);
  }
}

/** USER_HZ, the unit of /proc times: 100 on every Linux ABI Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * User plus system CPU time the child (all its threads) has used, in ms, or null without /proc.
 * Per request, it says what the server costs even when the load generator shares its cores.
 */
export function cpuTimeMs(child: Child): number | null {
  const pid = child.process.pid;
  if (pid === undefined || hasExited(child)) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces; proc(5) fields 14 and 15 are 11 and 12 after its closing ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}
