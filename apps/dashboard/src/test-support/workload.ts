/**
 * A real errand deployment for the dashboard's tests: a private Redis, an
 * in-process worker running the test agents, a collector (with its
 * reaper), a client to fire runs with, and the dashboard on a free
 * loopback port. Test-only: not exported.
 */
import { isTerminalEventType, type RunEvent } from "@errand/core";
import {
  type Collector,
  createCollector,
  createErrand,
  createWorker,
  type Errand,
  type ErrandWorker,
  type WorkerOptions,
} from "@errand/engine";
import { createLogger, redisAclRules } from "@errand/engine/ops";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Redis } from "ioredis";
import { createDashboard, type Dashboard } from "../create-dashboard.js";
import type { DashboardOptions } from "../options.js";
import { CITY, dashboardTestAgents } from "./agents.js";

/** How often the workload's worker re-checks a parked run. */
export const WORKLOAD_PARK_RECHECK_MS = 1_000;

/** Fewer shards than the default keep each test's reads small. */
export const TEST_SHARDS = 4;

/** One test file's deployment. */
export interface Workload {
  server: RedisServer;
  prefix: string;
  errand: Errand;
  worker: ErrandWorker;
  collector: Collector;
  dashboard: Dashboard;
  /** Starts another dashboard on the same deployment (closed by `stop`). */
  startDashboard(options?: Partial<DashboardOptions>): Promise<Dashboard>;
  /** The run's events, following its log until `until` matches (default: its terminal event). */
  waitForEvent(runId: string, until?: (event: RunEvent) => boolean): Promise<RunEvent[]>;
  /** Resolves once a collector has stored the run's result. */
  waitForResult(runId: string): Promise<void>;
  /** The children of `parentRunId` by the value of their `city` metadata. */
  childrenByCity(parentRunId: string): Promise<Map<string, string>>;
  stop(): Promise<void>;
}

/** A logger that writes nothing. */
export const silentLogger: ReturnType<typeof createLogger> = createLogger({ level: "silent" });

/** How the deployment reaches its Redis. */
export interface WorkloadAccess {
  /**
   * Connect everything (client, worker, collector, dashboards) as this
   * Redis user, created with errand's least-privilege ACL rules for the
   * prefix. Default: the server's `default` user.
   */
  aclUser?: { name: string; password: string };
}

/** The URL everything connects with: the server's, or the ACL user's it creates. */
async function connectionFor(
  server: RedisServer,
  prefix: string,
  access: WorkloadAccess,
): Promise<string> {
  if (access.aclUser === undefined) return server.url;
  const { name, password } = access.aclUser;
  const admin = new Redis(server.url);
  try {
    await admin.acl("SETUSER", name, ...redisAclRules(prefix), `>${password}`);
  } finally {
    admin.disconnect();
  }
  return `redis://${name}:${password}@${server.host}:${server.port}`;
}

/** Starts a deployment whose keys start with a prefix made from `label`; its worker prices models by `workerOptions.prices` when given. */
export async function startWorkload(
  label: string,
  dashboardOptions: Partial<DashboardOptions> = {},
  access: WorkloadAccess = {},
  workerOptions: Pick<WorkerOptions, "prices"> = {},
): Promise<Workload> {
  const server = await startRedis({ maxmemoryPolicy: "noeviction" });
  const prefix = uniqueKeyPrefix(`dashboard-${label}`);
  const connection = await connectionFor(server, prefix, access);
  const common = { connection, prefix, shards: TEST_SHARDS };
  const errand = createErrand(common);
  const worker = await createWorker({
    ...common,
    agents: dashboardTestAgents(),
    concurrency: 8,
    logger: silentLogger,
    parkRecheckMs: WORKLOAD_PARK_RECHECK_MS,
    ...workerOptions,
  });
  const collector = createCollector({ ...common, blockMs: 100, reaper: { intervalMs: 200 } });
  await collector.start();
  const dashboards: Dashboard[] = [];
  const startDashboard = async (options: Partial<DashboardOptions> = {}) => {
    const dashboard = await createDashboard({
      ...common,
      port: 0,
      logger: silentLogger,
      ...options,
    });
    dashboards.push(dashboard);
    return dashboard;
  };
  const dashboard = await startDashboard(dashboardOptions);
  return {
    server,
    prefix,
    errand,
    worker,
    collector,
    dashboard,
    startDashboard,
    async waitForEvent(runId, until = (event) => isTerminalEventType(event.type)) {
      const events: RunEvent[] = [];
      for await (const event of errand.events(runId, { follow: true })) {
        events.push(event);
        if (until(event)) return events;
      }
      throw new Error(`run ${runId} ended without the awaited event: ${JSON.stringify(events)}`);
    },
    async waitForResult(runId) {
      const result = await errand.result(runId, { waitMs: 20_000 });
      if (result === undefined) throw new Error(`run ${runId} has no stored result after 20 s`);
    },
    async childrenByCity(parentRunId) {
      const page = await errand.list({ parentRunId });
      const byCity = new Map<string, string>();
      for (const child of page.items) {
        const [queued] = await errand.store.readLog(child.runId);
        const city = queued?.type === "run-queued" ? queued.data.metadata.city : undefined;
        if (city !== undefined) byCity.set(city, child.runId);
      }
      return byCity;
    },
    async stop() {
      await Promise.all(dashboards.map((opened) => opened.close()));
      await worker.close({ graceMs: 500 });
      await collector.stop();
      await errand.close();
      await server.stop();
    },
  };
}

/**
 * A second worker on `w`'s Redis running the city agent as `version`: runs
 * fired on that version settle on it, and once it is closed no worker of
 * that version lives.
 */
export function startCityWorkerOfVersion(w: Workload, version: string): Promise<ErrandWorker> {
  return createWorker({
    connection: w.server.url,
    prefix: w.prefix,
    shards: TEST_SHARDS,
    logger: silentLogger,
    schedules: false,
    agents: dashboardTestAgents()
      .filter((agent) => agent.name === CITY)
      .map((agent) => ({ ...agent, version })),
  });
}
