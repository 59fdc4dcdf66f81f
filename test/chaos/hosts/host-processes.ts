/**
 * The processes of the hosts, each started inside its host's namespace: a
 * private `redis-server` bound to its host's address (and to a unix socket,
 * the harness's own way in, which needs no network), workers that are the
 * built CLI (`errand worker`, running the chaos agents) and a collector that
 * is the built CLI too (`errand collector`, with its reaper).
 */
import { join } from "node:path";
import { ErrandError } from "@errand/core";
import { waitUntil } from "@errand/testing";
import { Redis } from "ioredis";
import { type ChaosProcess, chaosEntry, REPO_ROOT, startLoggedProcess } from "../chaos-process.js";
import type { Host, HostNetwork } from "./host-network.js";

/** The port Redis listens on, on its host's address (each namespace has its ports to itself). */
const REDIS_PORT = 6390;

/** How long Redis may take to answer once started. */
const REDIS_READY_TIMEOUT_MS = 10_000;

/** How long a CLI process may take to say it is ready. */
const CLI_READY_TIMEOUT_MS = 120_000;

/** The built CLI, run as a user would (with tsx only to load the TypeScript agents module). */
const CLI_ENTRY = join(REPO_ROOT, "apps/cli/dist/main.js");
const AGENTS_MODULE = chaosEntry("./hosts/agents.ts");

/** The Redis of the hosts. */
export interface HostedRedis {
  readonly process: ChaosProcess;
  /** `redis://<host address>:<port>`: how the other hosts reach it. */
  readonly url: string;
  /** Its unix socket: how the harness reaches it, whatever the network does. */
  readonly socket: string;
}

/** A worker process and the workerId it writes into the logs of the runs it starts. */
export interface HostWorker {
  readonly host: Host;
  readonly process: ChaosProcess;
  readonly workerId: string;
}

/** Starts `redis-server` on `host` (AOF on, its files in `dir`) and resolves once it answers on its socket. */
export async function startRedisOn(
  network: HostNetwork,
  host: Host,
  dir: string,
): Promise<HostedRedis> {
  const socket = join(dir, "redis.sock");
  const server = startLoggedProcess(
    `redis@${host.name}`,
    network.commandOn(host, [
      "redis-server",
      "--bind",
      host.address,
      "--port",
      String(REDIS_PORT),
      // No password: the hosts' network reaches no one else.
      "--protected-mode",
      "no",
      "--unixsocket",
      socket,
      "--unixsocketperm",
      "700",
      "--dir",
      dir,
      "--save",
      "",
      "--appendonly",
      "yes",
      "--maxmemory-policy",
      "noeviction",
    ]),
    {},
  );
  const client = new Redis({ path: socket, lazyConnect: true, maxRetriesPerRequest: 0 });
  client.on("error", () => undefined);
  try {
    const answered = await waitUntil(
      () =>
        client.ping().then(
          () => true,
          () => undefined,
        ),
      { timeoutMs: REDIS_READY_TIMEOUT_MS, intervalMs: 100 },
    );
    if (!answered) {
      throw new ErrandError("redis_unavailable", `redis-server on ${host.name} never answered`);
    }
  } finally {
    client.disconnect();
  }
  return { process: server, url: `redis://${host.address}:${REDIS_PORT}`, socket };
}

/** `errand <args>` on `host`, configured by `env`. */
function startCli(
  network: HostNetwork,
  host: Host,
  name: string,
  args: readonly string[],
  env: Record<string, string>,
): ChaosProcess {
  return startLoggedProcess(
    `${name}@${host.name}`,
    network.commandOn(host, [process.execPath, "--import", "tsx", CLI_ENTRY, ...args]),
    { ERRAND_LOG_LEVEL: "info", ...env },
  );
}

/** Starts `errand worker` on `host` and resolves once it is ready. */
export async function startWorkerOn(
  network: HostNetwork,
  host: Host,
  redisUrl: string,
  prefix: string,
): Promise<HostWorker> {
  const worker = startCli(
    network,
    host,
    "worker",
    ["worker", "--agents", AGENTS_MODULE, "--prefix", prefix],
    { REDIS_URL: redisUrl, ERRAND_PREFIX: prefix },
  );
  const ready = await worker.waitForMessage("worker ready", CLI_READY_TIMEOUT_MS);
  return { host, process: worker, workerId: String(ready.workerId) };
}

/** Starts `errand collector` on `host` and resolves once it is ready. */
export async function startCollectorOn(
  network: HostNetwork,
  host: Host,
  redisUrl: string,
  prefix: string,
): Promise<ChaosProcess> {
  const collector = startCli(network, host, "collector", ["collector", "--prefix", prefix], {
    REDIS_URL: redisUrl,
  });
  await collector.waitForMessage("collector ready", CLI_READY_TIMEOUT_MS);
  return collector;
}
