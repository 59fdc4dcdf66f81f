/**
 * CPU time spent during a phase, by this process (client, worker, collector)
 * and by the Redis server. On a shared machine wall-clock rates move with
 * the load; CPU time per run moves much less, so the table shows both.
 */
import type { Redis } from "ioredis";
import { readInfo } from "./bench-redis.js";

/** CPU milliseconds spent since the meter started. */
export interface CpuSpent {
  /** This process, user + system. */
  nodeMs: number;
  /** The Redis server, user + system, every thread. */
  redisMs: number;
}

/** A running meter. */
export interface CpuMeter {
  /** The CPU spent since the meter started. */
  read(): Promise<CpuSpent>;
}

/** The CPU the server spent since it started, ms (`INFO cpu`, user + system). */
export async function redisCpuMs(redis: Redis): Promise<number> {
  const cpu = await readInfo(redis, "cpu");
  return (Number(cpu.get("used_cpu_user")) + Number(cpu.get("used_cpu_sys"))) * 1000;
}

/** The CPU this process spent since it started, ms (user + system). */
export function nodeCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** CPU microseconds per unit of work (per job, run or event). */
export interface CpuPerUnit {
  nodeUs: number;
  redisUs: number;
}

/** `spent` divided over `units`, in microseconds. */
export function cpuPerUnit(spent: CpuSpent, units: number): CpuPerUnit {
  return { nodeUs: (spent.nodeMs * 1000) / units, redisUs: (spent.redisMs * 1000) / units };
}

/** Starts measuring the CPU this process and the server behind `redis` spend. */
export async function startCpuMeter(redis: Redis): Promise<CpuMeter> {
  const redisStart = await redisCpuMs(redis);
  const nodeStart = nodeCpuMs();
  return {
    async read() {
      const nodeMs = nodeCpuMs() - nodeStart;
      return { nodeMs, redisMs: (await redisCpuMs(redis)) - redisStart };
    },
  };
}
