/**
 * Reading a Redis Cluster's topology from `CLUSTER NODES` (which node is a
 * master, which replicates which, which is failed), and the failover of a
 * master SIGKILLed so that its replica is promoted.
 */
import { ErrandError } from "@errand/core";
import type { LaunchedRedis } from "./launch-local.js";
import { sendRedisCommand } from "./resp.js";
import { waitUntil } from "./wait-until.js";

/** One node as a live node of the cluster sees it. */
export interface ClusterNodeView {
  id: string;
  port: number;
  role: "master" | "replica";
  /** The node id of its master, for a replica. */
  masterId?: string;
  /** Flagged `fail` or `fail?` (unreachable) by the node asked. */
  failing: boolean;
}

/** Parses the reply of `CLUSTER NODES`: one line per node, `id ip:port@cport flags master …`. */
function parseClusterNodes(reply: string): ClusterNodeView[] {
  return reply
    .trim()
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [id = "", address = "", flags = "", master = "-"] = line.split(" ");
      const flagSet = new Set(flags.split(","));
      return {
        id,
        port: Number(address.slice(address.lastIndexOf(":") + 1).split("@")[0]),
        role: flagSet.has("master") ? "master" : "replica",
        ...(master === "-" ? {} : { masterId: master }),
        failing: flagSet.has("fail") || flagSet.has("fail?"),
      } satisfies ClusterNodeView;
    });
}

/** The topology as node `asked` sees it; undefined when it does not answer. */
export async function readTopology(asked: LaunchedRedis): Promise<ClusterNodeView[] | undefined> {
  try {
    return parseClusterNodes(await sendRedisCommand(asked.process, ["CLUSTER", "NODES"]));
  } catch {
    return undefined;
  }
}

/** What one failover did. */
export interface MasterFailover {
  /** The port of the master SIGKILLed (it came back as a replica). */
  killedPort: number;
  /** The port of its replica, now the master of its slots. */
  promotedPort: number;
  /** ms from the SIGKILL until every live node reported the replica as master and `cluster_state:ok`. */
  promotedAfterMs: number;
}

/** How the cluster is watched while it fails over. */
export interface FailoverWatch {
  /** Every node, masters and replicas. */
  launched: readonly LaunchedRedis[];
  /** Resolves once every node in `nodes` reports `cluster_state:ok`; throws after a timeout. */
  waitUntilOk(nodes: readonly LaunchedRedis[]): Promise<void>;
  /** How long a promotion and a rejoin may take. */
  timeoutMs: number;
}

/**
 * SIGKILLs `victim`, a master with a replica, waits until one of its replicas
 * is promoted and every live node is `cluster_state:ok`, then starts the
 * killed node again on its port and config: it rejoins as a replica of the
 * promoted one (resolves once its replication link is up), so that the
 * cluster can fail over again.
 */
export async function failOverMaster(
  watch: FailoverWatch,
  victim: LaunchedRedis,
): Promise<MasterFailover> {
  const others = watch.launched.filter((node) => node !== victim);
  const before = await readTopology(others[0]!);
  const victimId = before?.find((node) => node.port === victim.process.port)?.id;
  const replicaPorts = new Set(
    (before ?? []).filter((node) => node.masterId === victimId).map((node) => node.port),
  );
  if (victimId === undefined || replicaPorts.size === 0) {
    throw new ErrandError(
      "invalid_spec",
      `node ${victim.process.port} is not a master with a replica: it cannot fail over`,
    );
  }
  const killedAt = Date.now();
  await victim.process.kill("SIGKILL");
  const isPromoted = (seen: ClusterNodeView) =>
    replicaPorts.has(seen.port) && seen.role === "master";
  // Promoted once every live node sees one of the replicas as a master.
  const promoted = await waitUntil(
    async () => {
      let seenPromoted: ClusterNodeView | undefined;
      for (const node of others) {
        seenPromoted = (await readTopology(node))?.find(isPromoted);
        if (seenPromoted === undefined) return undefined;
      }
      return seenPromoted;
    },
    { timeoutMs: watch.timeoutMs, intervalMs: 100 },
  );
  if (promoted === undefined) {
    throw new ErrandError(
      "redis_unavailable",
      `no replica of master ${victim.process.port} was promoted within ${watch.timeoutMs} ms`,
    );
  }
  await watch.waitUntilOk(others);
  const promotedAfterMs = Date.now() - killedAt;
  await victim.process.start();
  const rejoined = await waitUntil(
    async () => {
      try {
        const info = await sendRedisCommand(victim.process, ["INFO", "replication"]);
        return /^role:slave/m.test(info) && /^master_link_status:up/m.test(info) ? true : undefined;
      } catch {
        return undefined;
      }
    },
    { timeoutMs: watch.timeoutMs, intervalMs: 100 },
  );
  if (!rejoined) {
    throw new ErrandError(
      "redis_unavailable",
      `node ${victim.process.port} did not rejoin as a replica within ${watch.timeoutMs} ms`,
    );
  }
  await watch.waitUntilOk(watch.launched);
  return { killedPort: victim.process.port, promotedPort: promoted.port, promotedAfterMs };
}
