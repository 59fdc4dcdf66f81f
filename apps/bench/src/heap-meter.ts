/**
 * What this process's JavaScript heap allocated while a meter ran. V8 keeps
 * no running total of the bytes it allocated, but its heap only shrinks at
 * a garbage collection: so the heap in use before each collection, less the
 * heap in use after the collection before it (or when the meter started),
 * summed over the collections, plus the growth since the last one, is what
 * was allocated meanwhile. The heap in use around each collection comes
 * from V8's `GCProfiler` (`node:v8`), which costs nothing between
 * collections. Buffers' memory outside the heap is not counted.
 */
import { GCProfiler, getHeapStatistics } from "node:v8";

/** A running meter: `stop` (once) resolves the bytes the heap allocated since it started. */
export interface HeapMeter {
  stop(): number;
}

/** Starts counting the bytes this process's JavaScript heap allocates. */
export function startHeapMeter(): HeapMeter {
  const profiler = new GCProfiler();
  profiler.start();
  const usedAtStart = getHeapStatistics().used_heap_size;
  let allocated: number | undefined;
  return {
    stop() {
      if (allocated !== undefined) return allocated;
      const usedAtStop = getHeapStatistics().used_heap_size;
      const { statistics } = profiler.stop();
      let total = 0;
      let usedSinceLast = usedAtStart;
      for (const { beforeGC, afterGC } of statistics) {
        total += beforeGC.heapStatistics.usedHeapSize - usedSinceLast;
        usedSinceLast = afterGC.heapStatistics.usedHeapSize;
      }
      allocated = total + usedAtStop - usedSinceLast;
      return allocated;
    },
  };
}
