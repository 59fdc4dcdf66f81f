/**
 * A real Prometheus server (Debian's `prometheus`, installed by `.ci/run`)
 * for a test: a temporary configuration that scrapes the given targets every
 * second, its storage in a temporary directory, its web API on a free
 * loopback port. Test-only: not exported.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findFreePort, waitUntil } from "@errand/local-redis";

/** How often the test's Prometheus scrapes its targets. */
const SCRAPE_INTERVAL = "1s";

/** One value of an instant query: the series' labels and its value. */
export interface Sample {
  metric: Record<string, string>;
  value: number;
}

/** A running Prometheus. */
export interface PrometheusServer {
  readonly url: string;
  /** Runs the instant query `expr` (`/api/v1/query`) and answers its vector. */
  query(expr: string): Promise<Sample[]>;
  stop(): Promise<void>;
}

interface QueryAnswer {
  status: string;
  error?: string;
  data?: {
    resultType: string;
    result: { metric: Record<string, string>; value: [number, string] }[];
  };
}

/** Starts Prometheus scraping `targets` (job name → `host:port`) and resolves once it is ready. */
export async function startPrometheus(targets: Record<string, string>): Promise<PrometheusServer> {
  const dir = await mkdtemp(join(tmpdir(), "errand-prometheus-"));
  const config = [
    "global:",
    `  scrape_interval: ${SCRAPE_INTERVAL}`,
    `  scrape_timeout: ${SCRAPE_INTERVAL}`,
    "scrape_configs:",
    ...Object.entries(targets).flatMap(([job, target]) => [
      `  - job_name: ${job}`,
      "    static_configs:",
      `      - targets: ["${target}"]`,
    ]),
  ].join("\n");
  const configFile = join(dir, "prometheus.yml");
  await writeFile(configFile, `${config}\n`);
  const port = await findFreePort();
  const child: ChildProcess = spawn(
    "prometheus",
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const exited = once(child, "exit");
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  const ready = await waitUntil(
    async () => {
      if (child.exitCode !== null) throw new Error(`prometheus exited:\n${output}`);
      const answer = await fetch(`${url}/-/ready`).catch(() => undefined);
      return answer?.status === 200 ? true : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  ).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  if (!ready) {
    await stop();
    throw new Error(`prometheus was not ready after 30 s:\n${output}`);
  }
  return {
    url,
    async query(expr) {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const answer = (await response.json()) as QueryAnswer;
      if (answer.status !== "success" || answer.data?.resultType !== "vector") {
        throw new Error(`query ${expr} failed: ${answer.error ?? JSON.stringify(answer)}`);
      }
      return answer.data.result.map(({ metric, value }) => ({ metric, value: Number(value[1]) }));
    },
    stop,
  };
}
