/**
 * `@errand/bench` — `errand bench`: throughput, latency and cost per run,
 * side by side with raw BullMQ and raw Redis streams, measured in one run on
 * one fresh private Redis (persistence off, flushed between phases).
 *
 * ```ts
 * import { formatBenchTable, runBench } from "@errand/bench";
 *
 * const result = await runBench({ quick: true, onProgress: (line) => console.error(line) });
 * console.log(JSON.stringify(result.report)); // { machine, redis, baseline, errand, ratios }
 * process.stdout.write(formatBenchTable(result));
 * ```
 *
 * The phases, in order: raw BullMQ no-op jobs (one worker, concurrency 50);
 * errand end to end (`fireMany` → worker → collector → `collect`), with the
 * Redis commands (by name), CPU and memory it cost; errand latency at a
 * fixed offered rate (`fire` → `result`, profiled stage by stage), then
 * again with the server's append-only file on (`everysec`), then again with
 * the file on and the worker and the collector in a child process; the worker's append round trips per
 * step (counted under MONITOR); a collector folding a prepared backlog; raw
 * `XREADGROUP`+`XACK` over the same backlog's entries. Everything runs in the
 * calling process (but that child), driven through errand's public API.
 *
 * @packageDocumentation
 */
export { BENCH_AGENT, BENCH_OUTPUT_SCHEMA } from "./bench-agent.js";
export {
  type ClusterBenchOptions,
  type ClusterBenchReport,
  type ClusterSide,
  formatClusterBench,
  type MasterShare,
  runClusterBench,
} from "./cluster-bench.js";
export {
  type FanOutBenchOptions,
  type FanOutPhaseFigures,
  type FanOutReport,
  formatFanOutBench,
  runFanOutBench,
} from "./fan-out/fan-out-bench.js";
export {
  type FanOutClusterReport,
  type FanOutMasterShare,
  formatFanOutClusterBench,
  runFanOutClusterBench,
} from "./fan-out/fan-out-cluster-bench.js";
export type { FanOutOutput, FanOutPhase } from "./fan-out/fan-out-parent.js";
export {
  type FlowBenchReport,
  type FlowBenchSizes,
  type FlowOverheadSide,
  formatFlowBench,
  runFlowBench,
} from "./flow/flow-bench.js";
export { formatBenchTable } from "./format-table.js";
export type { MachineInfo } from "./machine.js";
export type {
  BaselineFigures,
  BenchConditions,
  BenchReport,
  BenchResult,
  ErrandFigures,
  RatioFigures,
  RedisInfo,
} from "./report.js";
export { type BenchOptions, runBench } from "./run-bench.js";
export {
  type BusyCores,
  formatScalingBench,
  runScalingBench,
  type ScalingBenchOptions,
  type ScalingPoint,
  type ScalingReport,
  type ScalingSide,
} from "./scaling/scaling-bench.js";
export { type BenchSizes, FULL_SIZES, QUICK_SIZES } from "./sizes.js";
