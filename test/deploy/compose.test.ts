/**
 * `infra/compose.yaml`, as Docker Compose itself reads it: `docker-compose
 * config` (Debian's docker-compose 1.29, which validates offline; `.ci/run`
 * installs it) must accept it, and what it resolves must hang together with
 * errand — commands errand takes, Redis on `infra/redis.conf`, a stop grace
 * longer than the worker's drain, health checks on the health endpoints.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { errandAccepts, flagValue, parseYamlDocuments, repoPath } from "./infra-files.js";

const COMPOSE_FILE = repoPath("infra", "compose.yaml");
const TOKEN = "compose-test-token-0123456789";

/** The fields of a resolved service the tests read. */
interface ComposeService {
  command?: string[];
  image?: string;
  build?: { context: string; dockerfile: string };
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  ports?: string[];
  scale?: number;
  stop_grace_period?: string;
  volumes?: string[];
}

/** Runs `docker-compose -f infra/compose.yaml config` with `env` added; fails clearly without docker-compose. */
function composeConfig(
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("docker-compose", ["-f", COMPOSE_FILE, "config"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "ENOENT"
          ? new Error(
              "docker-compose is not on PATH: this test checks infra/compose.yaml with it. Install Debian's docker-compose (apt-get install docker-compose), as .ci/run does",
            )
          : error,
      ),
    );
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Seconds in a Compose duration (`40s`, `1m30s`). */
function seconds(duration: string | undefined): number {
  const parts = [...(duration ?? "").matchAll(/(\d+)(h|m|s)/g)];
  expect(parts.length, `a duration, not ${duration}`).toBeGreaterThan(0);
  const unit = { h: 3600, m: 60, s: 1 } as const;
  return parts.reduce((sum, [, n, u]) => sum + Number(n) * unit[u as keyof typeof unit], 0);
}

let services: Record<string, ComposeService>;

beforeAll(async () => {
  const resolved = await composeConfig({ ERRAND_DASHBOARD_TOKEN: TOKEN });
  expect(resolved.code, resolved.stderr).toBe(0);
  const [config] = parseYamlDocuments(resolved.stdout, "docker-compose config") as [
    { services: Record<string, ComposeService> },
  ];
  services = config.services;
});

const service = (name: string): ComposeService => {
  const found = services[name];
  expect(found, `service ${name}`).toBeDefined();
  return found as ComposeService;
};

/** The volume of `service` mounted at `target`: its source on the host. */
function mountedAt(target: string, of: ComposeService): string | undefined {
  const volume = of.volumes?.find((v) => v.split(":")[1] === target);
  return volume?.split(":")[0];
}

describe("infra/compose.yaml", () => {
  it("is accepted by docker-compose: Redis, workers, two collectors and the dashboard", () => {
    expect(Object.keys(services).sort()).toEqual(["collector", "dashboard", "redis", "worker"]);
    expect(service("collector").scale).toBe(2);
    expect(service("worker").scale).toBeGreaterThanOrEqual(1);
  });

  it("refuses to start the dashboard without ERRAND_DASHBOARD_TOKEN", async () => {
    const refused = await composeConfig({ ERRAND_DASHBOARD_TOKEN: undefined });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("set ERRAND_DASHBOARD_TOKEN");
    expect(service("dashboard").environment?.ERRAND_DASHBOARD_TOKEN).toBe(TOKEN);
  });

  it("runs Redis on infra/redis.conf: append-only file and noeviction", async () => {
    const redis = service("redis");
    const confPath = redis.command?.[1] ?? "";
    expect(redis.command?.[0]).toBe("redis-server");
    expect(mountedAt(confPath, redis)).toBe(repoPath("infra", "redis.conf"));
    const settings = (await readFile(repoPath("infra", "redis.conf"), "utf8"))
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("#"));
    expect(settings).toContain("maxmemory-policy noeviction");
    expect(settings).toContain("appendonly yes");
  });

  it("builds one image from infra/Dockerfile and runs commands errand takes, once Redis is healthy", async () => {
    for (const name of ["worker", "collector", "dashboard"]) {
      const errand = service(name);
      expect(errand.build?.dockerfile, name).toBe("infra/Dockerfile");
      expect(errand.build?.context, name).toBe(repoPath().replace(/\/$/, ""));
      expect(errand.image, name).toBe(service("worker").image);
      expect(errand.depends_on?.redis?.condition, name).toBe("service_healthy");
      expect(errand.environment?.REDIS_URL, name).toBe("redis://redis:6379");
      const command = errand.command ?? [];
      expect(command[0], name).toBe(name);
      expect(await errandAccepts(command), command.join(" ")).toEqual({ code: 0, stderr: "" });
    }
  });

  it("checks /readyz on the port each process serves it on, and publishes the dashboard on loopback", () => {
    for (const [name, portFlag] of [
      ["worker", "--health-port"],
      ["collector", "--health-port"],
      ["dashboard", "--port"],
    ] as const) {
      const port = flagValue(service(name).command ?? [], portFlag);
      expect(service(name).healthcheck?.test.join(" "), name).toContain(
        `http://127.0.0.1:${port}/readyz`,
      );
    }
    const port = flagValue(service("dashboard").command ?? [], "--port");
    expect(service("dashboard").ports).toEqual([`127.0.0.1:${port}:${port}/tcp`]);
  });

  it("gives a worker longer than its drain (--grace) to stop, and mounts the agents it loads", () => {
    const worker = service("worker");
    const grace = Number(flagValue(worker.command ?? [], "--grace"));
    expect(grace).toBeGreaterThan(0);
    expect(seconds(worker.stop_grace_period)).toBeGreaterThan(grace);
    const agents = flagValue(worker.command ?? [], "--agents") ?? "";
    const source = mountedAt(agents, worker);
    expect(source).toBe(repoPath("infra", "kubernetes", "agents.mjs"));
    expect(existsSync(source ?? "")).toBe(true);
  });
});
