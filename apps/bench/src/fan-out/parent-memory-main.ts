/**
 * `node apps/bench/dist/fan-out/parent-memory-main.js [children]` (default
 * 1,000,000): the fan-out parent's own memory (`parent-memory.ts`), as JSON.
 */
import { runParentMemoryBench } from "./parent-memory.js";

const children = Number(process.argv[2] ?? 1_000_000);
const report = await runParentMemoryBench(children);
process.stdout.write(`${JSON.stringify(report)}\n`);
