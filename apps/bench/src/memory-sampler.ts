/**
 * Where this process's resident set goes while a bench runs: samples
 * `process.memoryUsage()` on a timer and keeps, per phase, the peak of each
 * part (rss, heapTotal, heapUsed, external, arrayBuffers), plus V8's heap
 * spaces (`getHeapSpaceStatistics`) when the resident set was highest. A
 * peak RSS alone cannot tell the V8 heap from Buffers or native memory; the
 * parts at the peak can. `process.memoryUsage()` walks the heap's pages, so
 * the interval is a quarter second, not less.
 */
import { getHeapSpaceStatistics } from "node:v8";
import { round } from "./stats.js";

/** The highest of each part of `process.memoryUsage()` seen in a phase, MB of 2^20 bytes (as the reports' peak RSS). */
interface MemoryPeaks {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** One V8 heap space when the resident set was highest, MB. */
interface HeapSpaceAtPeak {
  space: string;
  size: number;
  used: number;
}

/** What the sampler saw: the peaks by phase, and the heap spaces and parts at the highest RSS. */
export interface MemoryFigures {
  byPhase: Record<string, MemoryPeaks>;
  /** `process.memoryUsage()` at the sample with the highest RSS, MB. */
  atPeak: MemoryPeaks;
  heapSpacesAtPeak: HeapSpaceAtPeak[];
}

const SAMPLE_MS = 250;

const mb = (bytes: number) => round(bytes / 2 ** 20);

function currentParts(): MemoryPeaks {
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return {
    rss: mb(rss),
    heapTotal: mb(heapTotal),
    heapUsed: mb(heapUsed),
    external: mb(external),
    arrayBuffers: mb(arrayBuffers),
  };
}

function heapSpaces(): HeapSpaceAtPeak[] {
  return getHeapSpaceStatistics().map((space) => ({
    space: space.space_name,
    size: mb(space.space_size),
    used: mb(space.space_used_size),
  }));
}

/** A running sampler: `phase` closes the current phase under a name; `stop` (once) ends sampling. */
export interface MemorySampler {
  phase(name: string): void;
  stop(): MemoryFigures;
}

/** Starts sampling this process's memory, the first phase open. */
export function startMemorySampler(): MemorySampler {
  const byPhase: Record<string, MemoryPeaks> = {};
  let current: MemoryPeaks | undefined;
  let atPeak = currentParts();
  let heapSpacesAtPeak = heapSpaces();
  const sample = () => {
    const parts = currentParts();
    current =
      current === undefined
        ? parts
        : {
            rss: Math.max(current.rss, parts.rss),
            heapTotal: Math.max(current.heapTotal, parts.heapTotal),
            heapUsed: Math.max(current.heapUsed, parts.heapUsed),
            external: Math.max(current.external, parts.external),
            arrayBuffers: Math.max(current.arrayBuffers, parts.arrayBuffers),
          };
    if (parts.rss > atPeak.rss) {
      atPeak = parts;
      heapSpacesAtPeak = heapSpaces();
    }
  };
  const timer = setInterval(sample, SAMPLE_MS);
  timer.unref();
  sample();
  return {
    phase(name) {
      sample();
      if (current !== undefined) byPhase[name] = current;
      current = undefined;
    },
    stop() {
      clearInterval(timer);
      return { byPhase, atPeak, heapSpacesAtPeak };
    },
  };
}
