/** The machine a bench ran on, as the report states it. */
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";

/** The machine: `{ cpus, cpuModel, totalMemGb, node, platform }`. */
export interface MachineInfo {
  /** Logical CPUs Node may use. */
  cpus: number;
  cpuModel: string;
  /** Total memory in GiB, two decimals. */
  totalMemGb: number;
  /** The Node.js version (`v20.…`). */
  node: string;
  /** `<os>-<arch>`, e.g. `linux-x64`. */
  platform: string;
}

/** Describes this machine. */
export function machineInfo(): MachineInfo {
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? "unknown",
    totalMemGb: Math.round((totalmem() / 1024 ** 3) * 100) / 100,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** The 1, 5 and 15 minute load averages, two decimals: how busy the machine was. */
export function loadAverages(): [number, number, number] {
  const [one = 0, five = 0, fifteen = 0] = loadavg().map((value) => Math.round(value * 100) / 100);
  return [one, five, fifteen];
}

/** The CPU every process on the machine spent since boot, ms (every core's non-idle time). */
export function machineCpuMs(): number {
  return cpus().reduce(
    (sum, { times }) => sum + times.user + times.nice + times.sys + times.irq,
    0,
  );
}
