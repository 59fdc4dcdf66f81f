/**
 * `errand demo`: a parent agent fires children designed to end in every way
 * docs/architecture/structured-output.md describes, collects them with partial success and records its
 * own summary — on a private Redis and the scripted model unless told otherwise.
 */
import { createErrand, type Errand } from "@errand/engine";
import { CONNECTION_OPTIONS, type CommandSpec, JSON_OPTION } from "../command.js";
import { demoAgents } from "../demo/agents.js";
import { type DemoOutcome, runDemo } from "../demo/driver.js";
import { MAX_DEMO_CHILDREN } from "../demo/parent-plan.js";
import { demoJson, printDemoReport } from "../demo/report.js";
import { planChildren } from "../demo/scenarios.js";
import { judgeDemo } from "../demo/verdict.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { catchStopSignals, type LocalRedis, localRedis } from "../lifecycle.js";
import { startLocalEngine } from "../local-engine.js";
import { stderrLogger } from "../log.js";
import { type ModelChoice, modelFromEnv } from "../models.js";
import { writeJson } from "../output.js";
import { createProgress } from "../progress.js";
import { keyPrefix, redactUrl } from "../redis.js";

/** How the demo was asked to run. */
interface DemoSettings {
  count: number;
  timeoutMs: number;
  prefix: string;
  json: boolean;
  /** On the scripted model every outcome is designed; on a real one only the cancel. */
  model: ModelChoice;
  /** Aborts on Ctrl-C. */
  interrupted: AbortSignal;
}

/** Resolves `undefined` once `signal` aborts. */
function abortedWith(signal: AbortSignal): Promise<DemoOutcome | undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(undefined);
    signal.addEventListener("abort", () => resolve(undefined), { once: true });
  });
}

/** Plays the demo through `errand`, prints what came of it, and says whether it went as designed. */
async function playDemo(io: CliIO, errand: Errand, settings: DemoSettings): Promise<ExitCode> {
  const { count, json, interrupted } = settings;
  const children = planChildren(count);
  const progress = createProgress({ total: count, stream: io.stderr, silent: json });
  const signal = AbortSignal.any([interrupted, AbortSignal.timeout(settings.timeoutMs)]);
  const demo = runDemo(errand, { children, progress, signal, timeoutMs: settings.timeoutMs });
  const outcome = await Promise.race([demo, abortedWith(interrupted)]);
  progress.finish();
  if (outcome === undefined) {
    demo.catch(() => {}); // its connections are closing under it
    io.stderr.write("errand demo: interrupted; cleaning up\n");
    return EXIT.failure;
  }
  const verdict = judgeDemo(outcome, count, settings.model.scripted);
  if (json) writeJson(io, demoJson(outcome));
  else printDemoReport(io, outcome, verdict);
  return verdict.problems.length === 0 ? EXIT.ok : EXIT.failure;
}

/** Starts a worker and a collector on `redis`, plays the demo, stops them. */
async function demoOn(io: CliIO, redis: LocalRedis, settings: DemoSettings): Promise<ExitCode> {
  if (!settings.json) {
    const where = redis.private
      ? `a private Redis at ${redis.url} (removed afterwards)`
      : redactUrl(redis.url);
    io.stderr.write(
      `errand demo: ${settings.count} children on ${where}, ${settings.model.description}\n`,
    );
  }
  const engine = await startLocalEngine({
    url: redis.url,
    prefix: settings.prefix,
    agents: demoAgents(settings.model.model),
    concurrency: settings.count + 1,
    log: { io, level: "silent" },
  });
  const errand = createErrand({
    connection: redis.url,
    prefix: settings.prefix,
    logger: stderrLogger(io, "silent"),
  });
  try {
    return await playDemo(io, errand, settings);
  } finally {
    await errand.close();
    await engine.stop();
  }
}

/** `demo`. */
export const demoCommand: CommandSpec = {
  usage: "errand demo [--runs N] [--json] [--timeout <seconds>]",
  description: [
    "A parent agent spawns N children (default 12) that must record a city and its",
    "population, designed to end in each way a run can: recorded at once; invalid, then",
    "corrected; finished without an answer; cancelled mid-run (the demo cancels it once it",
    "started); a model failure. The parent collects them all, partial success included, and",
    "records its own summary { total, succeeded, failed, cancelled }. The screen shows",
    "progress, then a table of the children, the counts and the parent's summary; --json",
    "prints { parent, children } as RunResults instead.",
    "",
    "Without REDIS_URL it starts a private redis-server (from PATH, else Docker) and",
    "removes it afterwards, also on Ctrl-C. ERRAND_MODEL=anthropic/<model> runs the agents",
    "on Claude (ANTHROPIC_API_KEY), google/<model> on Gemini (GOOGLE_GENERATIVE_AI_API_KEY).",
    "Otherwise, without OPENAI_API_KEY or OPENAI_BASE_URL the agents run on the scripted",
    "model; with either, on ERRAND_MODEL (default gpt-4o-mini; openai/<model> alike)",
    "at OPENAI_BASE_URL (a local server needs no key), else at OpenAI.",
    "Exits 0 when every run settled as designed, 1 otherwise.",
  ].join("\n"),
  options: {
    runs: {
      type: "string",
      value: "<N>",
      description: `how many children, 1 to ${MAX_DEMO_CHILDREN} (default 12)`,
    },
    timeout: {
      type: "string",
      value: "<seconds>",
      description: "give up on runs still going after this long (default 300)",
    },
    ...JSON_OPTION,
    ...CONNECTION_OPTIONS,
  },
  async run(args, io) {
    const signals = catchStopSignals();
    const interrupted = new AbortController();
    signals.first.then((signal) => {
      if (signal) interrupted.abort();
    });
    try {
      const settings: DemoSettings = {
        count: args.integer("runs", { min: 1, max: MAX_DEMO_CHILDREN }, 12),
        timeoutMs: args.integer("timeout", { min: 1, max: 3600 }, 300) * 1000,
        prefix: keyPrefix(args),
        json: args.flag("json"),
        model: await modelFromEnv(io.env),
        interrupted: interrupted.signal,
      };
      const redis = await localRedis(args, io);
      try {
        return await demoOn(io, redis, settings);
      } finally {
        await redis.release();
      }
    } finally {
      signals.release();
    }
  },
};
