/**
 * `@errand/engine/ops` — the parts of the engine that errand's own apps
 * (the `errand` CLI, the dashboard, the bench) and tests build on: queue and
 * worker registries as the CLI and dashboard read them, Prometheus gauges,
 * diagnostics channels the bench's latency profile subscribes to, the
 * closing helpers, the logger, and the Redis ACL that `errand doctor --acl`
 * prints.
 *
 * **Unstable.** This subpath carries no semver promise: a name here may
 * change or go in any release, in step with errand's apps. Build on the
 * root, `@errand/engine`, whose names the docs teach.
 *
 * @packageDocumentation
 */

export { DEFAULT_SHARDS, SETTLED_HEARD_CHANNEL, type SettledHeard } from "@errand/store/ops";
export { AccessScopeName, LOOPBACK_KEY_ID, TenantName } from "./access/access-grant.js";
export { FireBudget } from "./budgets/fire-budget.js";
export { DEFAULT_PRICE_TABLE } from "./budgets/price-table.js";
export { MAX_FIRE_MANY } from "./client/fire-spec.js";
export { DEFAULT_COLLECTOR_GROUP } from "./collector/consumer-group.js";
export { type CollectorMetrics, readCollectorMetrics } from "./collector/metrics.js";
export { COLLECTOR_BATCH_CHANNEL, type CollectorBatchRead } from "./collector/shard-loop.js";
export { parseFlowControl } from "./flow-control/flow-options.js";
export { createLogger } from "./logger.js";
export { addCollectorGauges } from "./metrics/collector-gauges.js";
export { addQueueDepthGauge } from "./metrics/queue-depth.js";
export { countRedisErrors } from "./metrics/redis-errors.js";
export { queueOfAgents } from "./queues/agent-queues.js";
export { type AgentVersionStanding, readAgentVersions } from "./queues/agent-versions.js";
export { logBullErrors } from "./queues/bull-errors.js";
export { readJobCounts, readQueueBacklog, sumJobCounts } from "./queues/queue-backlog.js";
export { MAX_QUEUE_SHARDS, shardOfRun } from "./queues/queue-shards.js";
export { type AgentRegistration, isLive, readAgentRegistrations } from "./queues/registry.js";
export { DEFAULT_JOB_OPTIONS } from "./queues/run-queues.js";
export { collectedRun } from "./reads/collected-run.js";
export { LIST_LIMITS, runSummaryOf } from "./reads/list.js";
export {
  createRunLogFollower,
  type RunLogFollower,
  type RunLogFollowerContext,
} from "./reads/run-log-follower.js";
export { checkDashboardUrl } from "./reads/view-url.js";
export { clientPatience, type Patiently } from "./redis/client-patience.js";
export { closeWithin, runEach } from "./redis/closing.js";
export { CLIENT_COMMAND_RETRIES, closeConnection } from "./redis/connection.js";
export { type RedisAclConfigOptions, redisAclConfig, redisAclRules } from "./redis/redis-acl.js";
export { redactRedisUrl } from "./redis/redis-target.js";
export { openRedisUrl } from "./redis/redis-url.js";
export { readScheduleRuns } from "./schedules/schedule-records.js";
export { DEFAULT_HEARTBEAT_MS, readWorkerHeartbeats, WorkerHeartbeat } from "./worker/heartbeat.js";
export { WORKER_JOB_TAKEN_CHANNEL, type WorkerJobTaken } from "./worker/taken-jobs.js";
export { untakenQueueShards } from "./worker/untaken-queue-shards.js";
