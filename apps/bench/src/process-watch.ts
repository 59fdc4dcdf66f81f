/**
 * What a process of the latency phases does besides the runs, and when its
 * parts reached a run's milestones: its event loop's delay, garbage
 * collection pauses and the bytes its heap allocated (`watchProcess`), and the times errand's worker took a
 * run's job and a collector's read returned its events (`recordPartMilestones`,
 * from errand's diagnostics channels). The bench process watches itself; a
 * child process running the worker and the collector watches itself and
 * hands both over when it stops (`phases/latency-parts-process.ts`).
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import {
  COLLECTOR_BATCH_CHANNEL,
  type CollectorBatchRead,
  WORKER_JOB_TAKEN_CHANNEL,
  type WorkerJobTaken,
} from "@errand/engine/ops";
import { startHeapMeter } from "./heap-meter.js";

/** What one process did meanwhile: its event-loop delay, its garbage-collection pauses, what its heap allocated. */
export interface ProcessFigures {
  /** The event-loop delay (`monitorEventLoopDelay`), 99th percentile and maximum, in ms. */
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  /** Garbage-collection pauses: how many, their total and the longest, in ms. */
  gcPauses: number;
  gcPauseTotalMs: number;
  gcPauseMaxMs: number;
  /** The bytes its JavaScript heap allocated (`heap-meter.ts`), in MB (2^20 bytes). */
  heapAllocatedMb: number;
}

/** The ticks of the event-loop delay monitor, in ms. */
const EVENT_LOOP_RESOLUTION_MS = 5;

/** Starts watching this process; `stop` (once) resolves what it saw. */
export function watchProcess(): { stop(): ProcessFigures } {
  const eventLoop = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  const heap = startHeapMeter();
  const gcPauses: number[] = [];
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcPauses.push(entry.duration);
  });
  gc.observe({ entryTypes: ["gc"] });
  eventLoop.enable();
  let figures: ProcessFigures | undefined;
  return {
    stop() {
      if (figures !== undefined) return figures;
      const heapAllocated = heap.stop();
      eventLoop.disable();
      gc.disconnect();
      const ms = (nanoseconds: number) => nanoseconds / 1e6;
      figures = {
        eventLoopDelayP99Ms: ms(eventLoop.percentile(99)),
        eventLoopDelayMaxMs: ms(eventLoop.max),
        gcPauses: gcPauses.length,
        gcPauseTotalMs: gcPauses.reduce((sum, pause) => sum + pause, 0),
        gcPauseMaxMs: Math.max(0, ...gcPauses),
        heapAllocatedMb: heapAllocated / 2 ** 20,
      };
      return figures;
    },
  };
}

/** When errand's parts reached each run's milestones, epoch ms by runId. */
export interface PartMilestones {
  /** The worker's processor took the run's job. */
  takenAt: Map<string, number>;
  /** A collector's read returned the run's events (the last read that did). */
  readAt: Map<string, number>;
}

/** Records the parts' milestones of this process's worker and collectors until `stop`. */
export function recordPartMilestones(): { milestones: PartMilestones; stop(): void } {
  const milestones: PartMilestones = { takenAt: new Map(), readAt: new Map() };
  const onBatch = (message: unknown) => {
    const { readAt: at, runIds } = message as CollectorBatchRead;
    for (const runId of runIds) milestones.readAt.set(runId, at);
  };
  const onTaken = (message: unknown) => {
    const { runId, takenAt: at } = message as WorkerJobTaken;
    milestones.takenAt.set(runId, at);
  };
  subscribe(COLLECTOR_BATCH_CHANNEL, onBatch);
  subscribe(WORKER_JOB_TAKEN_CHANNEL, onTaken);
  let stopped = false;
  return {
    milestones,
    stop() {
      if (stopped) return;
      stopped = true;
      unsubscribe(COLLECTOR_BATCH_CHANNEL, onBatch);
      unsubscribe(WORKER_JOB_TAKEN_CHANNEL, onTaken);
    },
  };
}
