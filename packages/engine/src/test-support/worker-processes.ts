/**
 * Worker child processes for the engine's tests: real `node` processes
 * running `worker-process.ts` through tsx, whose JSON log lines the test
 * reads as events (never sleeping to wait). Test-only: not exported.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { FlowControlOptions } from "../flow-control/flow-options.js";

/** One JSON log line of a worker process. */
export type LogLine = Record<string, unknown> & { msg?: string };

/** The one agent of a bare worker process (`bare-worker-process.ts`): it says what its input scripts. */
export const BARE_AGENT = "bare-greeter";

/** What a worker process is started with. */
export interface SpawnWorkerOptions {
  /**
   * Start `bare-worker-process.ts` (a worker running {@link BARE_AGENT}, and
   * nothing else in the process) instead of `worker-process.ts`; only the
   * Redis, prefix and worker id apply.
   */
  bare?: boolean;
  redisUrl: string;
  prefix: string;
  workerId: string;
  concurrency?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  maxStalledCount?: number;
  graceMs?: number;
  heartbeatMs?: number;
  /** The version of every agent it runs; default: their digest. */
  agentVersion?: string;
  /** Also run {@link STREAMER}, streaming from the OpenAI-compatible server at this base URL. */
  streamingModelUrl?: string;
  /** Its `flowControl`; default none. */
  flowControl?: FlowControlOptions;
  /** Run only this agent, on `model` through the real `openai` client to `baseURL`, instead of the test agents. */
  openaiAgent?: { name: string; model: string; baseURL: string };
}

/** A running worker process. */
export interface WorkerProcess {
  readonly workerId: string;
  readonly child: ChildProcess;
  /** Every line it logged so far. */
  readonly lines: LogLine[];
  /** The first line (logged so far or later) that `matches`; rejects if the process exits first or after `timeoutMs`. */
  waitForLine(
    matches: (line: LogLine) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<LogLine>;
  /** Sends `signal` to the process. */
  signal(signal: NodeJS.Signals): void;
  /** Resolves with how the process ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const ENTRY = fileURLToPath(new URL("./worker-process.ts", import.meta.url));
const BARE_ENTRY = fileURLToPath(new URL("./bare-worker-process.ts", import.meta.url));
const ANSWER_ENTRY = fileURLToPath(new URL("./answer-process.ts", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** Starts `node` on the TypeScript file `entry` (through tsx) with `env`, its output piped. */
function spawnEntry(entry: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "--conditions=@errand/source", entry], {
    cwd: PACKAGE_DIR,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function environment(options: SpawnWorkerOptions): NodeJS.ProcessEnv {
  const optional: Record<string, number | undefined> = {
    CONCURRENCY: options.concurrency,
    LOCK_DURATION_MS: options.lockDurationMs,
    STALLED_INTERVAL_MS: options.stalledIntervalMs,
    MAX_STALLED_COUNT: options.maxStalledCount,
    GRACE_MS: options.graceMs,
    HEARTBEAT_MS: options.heartbeatMs,
  };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: options.redisUrl,
    ERRAND_PREFIX: options.prefix,
    WORKER_ID: options.workerId,
    ...(options.agentVersion === undefined ? {} : { AGENT_VERSION: options.agentVersion }),
    ...(options.streamingModelUrl === undefined
      ? {}
      : { STREAMING_MODEL_URL: options.streamingModelUrl }),
    ...(options.flowControl === undefined
      ? {}
      : { FLOW_CONTROL: JSON.stringify(options.flowControl) }),
    ...(options.openaiAgent === undefined
      ? {}
      : {
          OPENAI_AGENT: options.openaiAgent.name,
          OPENAI_MODEL: options.openaiAgent.model,
          OPENAI_BASE_URL: options.openaiAgent.baseURL,
          OPENAI_API_KEY: "test",
        }),
  };
  for (const [name, value] of Object.entries(optional)) {
    if (value !== undefined) env[name] = String(value);
  }
  return env;
}

/** Starts a worker process and resolves once it logged `worker ready`. */
export async function spawnWorker(options: SpawnWorkerOptions): Promise<WorkerProcess> {
  const child = spawnEntry(options.bare ? BARE_ENTRY : ENTRY, environment(options));
  const lines: LogLine[] = [];
  const listeners = new Set<(line: LogLine) => void>();
  const stderr: string[] = [];
  child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
  createInterface({ input: child.stdout! }).on("line", (text) => {
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      line = { msg: text };
    }
    lines.push(line);
    for (const listener of listeners) listener(line);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );

  const waitForLine: WorkerProcess["waitForLine"] = (matches, what, timeoutMs = 30_000) => {
    const seen = lines.find(matches);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const done = () => {
        listeners.delete(listener);
        clearTimeout(timer);
      };
      const listener = (line: LogLine) => {
        if (!matches(line)) return;
        done();
        resolve(line);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`worker ${options.workerId} never logged ${what}`));
      }, timeoutMs);
      listeners.add(listener);
      exited.then(({ code, signal }) => {
        if (!listeners.has(listener)) return;
        done();
        reject(
          new Error(
            `worker ${options.workerId} exited (${code ?? signal}) before logging ${what}: ${stderr.join("")}`,
          ),
        );
      });
    });
  };

  await waitForLine((line) => line.msg === "worker ready", "worker ready");
  return {
    workerId: options.workerId,
    child,
    lines,
    waitForLine,
    signal: (signal) => child.kill(signal),
    exited,
  };
}

/** Kills every process of `workers` still running (SIGKILL, which also ends a stopped one) and waits for them. */
export async function killWorkers(workers: readonly WorkerProcess[]): Promise<void> {
  await Promise.all(
    workers.map(async (worker) => {
      if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
      worker.child.kill("SIGKILL");
      await worker.exited;
    }),
  );
}

/** What {@link answerFromProcess} answers with. */
export interface ProcessAnswer {
  redisUrl: string;
  prefix: string;
  token: string;
  answer: unknown;
  answeredBy: string;
}

/**
 * Answers a waitpoint from a child process of its own (`answer-process.ts`)
 * and resolves with the line it printed: `{ ok: true, completed }` or `{ ok: false, error }`.
 */
export async function answerFromProcess(options: ProcessAnswer): Promise<LogLine> {
  const child = spawnEntry(ANSWER_ENTRY, {
    ...process.env,
    REDIS_URL: options.redisUrl,
    ERRAND_PREFIX: options.prefix,
    TOKEN: options.token,
    ANSWER: JSON.stringify(options.answer),
    ANSWERED_BY: options.answeredBy,
  });
  const output: string[] = [];
  const errors: string[] = [];
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => errors.push(chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  // Its own log lines come on stdout too: the answer is the line with `ok`.
  const lines = output
    .join("")
    .split("\n")
    .filter((text) => text.startsWith("{"));
  const answer = lines.map((text) => JSON.parse(text) as LogLine).find((line) => "ok" in line);
  if (code !== 0 || answer === undefined) {
    throw new Error(`the answering process exited ${code}: ${errors.join("")}`);
  }
  return answer;
}
