/**
 * Every command of `errand`, in the order the overview lists them. A
 * command's module is imported only when it runs, so `errand --help` stays
 * quick and loads neither BullMQ nor the OpenAI client.
 */
import type { CommandEntry } from "../command.js";

/** The commands, by name. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "up",
    summary: "worker and collector in one process, for local development",
    load: async () => (await import("./up.js")).upCommand,
  },
  {
    name: "worker",
    summary: "run the agents of a module: the deployable worker process",
    load: async () => (await import("./worker.js")).workerCommand,
  },
  {
    name: "collector",
    summary: "fold events into run results: the deployable collector process",
    load: async () => (await import("./collector.js")).collectorCommand,
  },
  {
    name: "runs fold",
    summary: "fold a saved log offline and print its RunResult",
    load: async () => (await import("./runs-fold.js")).runsFoldCommand,
  },
];
