/**
 * Every command of `errand`, in the order the overview lists them. A
 * command's module is imported only when it runs, so `errand --help` stays
 * quick and loads neither BullMQ nor the OpenAI client.
 */
import type { CommandEntry } from "../command.js";

/** The commands, by name. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "demo",
    summary: "a parent agent fires children with a deliberate mix of outcomes and collects them",
    load: async () => (await import("./demo.js")).demoCommand,
  },
  {
    name: "up",
    summary: "worker, collector and dashboard in one process, for local development",
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
    name: "dashboard",
    summary: "serve the dashboard alone on a deployment's Redis",
    load: async () => (await import("./dashboard.js")).dashboardCommand,
  },
  {
    name: "mcp",
    summary: "serve errand's MCP tools on stdio, or Streamable HTTP with --http",
    load: async () => (await import("./mcp.js")).mcpCommand,
  },
  {
    name: "api",
    summary: "serve the HTTP API /v1 on a deployment's Redis: the deployable API process",
    load: async () => (await import("./api.js")).apiCommand,
  },
  {
    name: "fire",
    summary: "fire runs of an agent, and with --wait wait for their results",
    load: async () => (await import("./fire.js")).fireCommand,
  },
  {
    name: "runs list",
    summary: "list runs, newest first",
    load: async () => (await import("./runs-list.js")).runsListCommand,
  },
  {
    name: "runs show",
    summary: "show a run's result, or where it stands",
    load: async () => (await import("./runs-show.js")).runsShowCommand,
  },
  {
    name: "runs tree",
    summary: "show a run and its descendants as a tree",
    load: async () => (await import("./runs-tree.js")).runsTreeCommand,
  },
  {
    name: "runs events",
    summary: "print a run's log",
    load: async () => (await import("./runs-events.js")).runsEventsCommand,
  },
  {
    name: "runs tail",
    summary: "follow a run's log live until it settles",
    load: async () => (await import("./runs-tail.js")).runsTailCommand,
  },
  {
    name: "runs cancel",
    summary: "cancel a run (and with --cascade its descendants)",
    load: async () => (await import("./runs-cancel.js")).runsCancelCommand,
  },
  {
    name: "runs rerun",
    summary: "fire runs again after a fix: by id, or those a filter matches",
    load: async () => (await import("./runs-rerun.js")).runsRerunCommand,
  },
  {
    name: "runs waiting",
    summary: "list the runs waiting for an answer from a person",
    load: async () => (await import("./runs-waiting.js")).runsWaitingCommand,
  },
  {
    name: "runs answer",
    summary: "answer the waitpoint a run waits on",
    load: async () => (await import("./runs-answer.js")).runsAnswerCommand,
  },
  {
    name: "runs fold",
    summary: "fold a saved log offline and print its RunResult",
    load: async () => (await import("./runs-fold.js")).runsFoldCommand,
  },
  {
    name: "keys create",
    summary: "create an access key for the HTTP API and the MCP server, shown once",
    load: async () => (await import("./keys-create.js")).keysCreateCommand,
  },
  {
    name: "keys list",
    summary: "list the access keys by id, never the keys",
    load: async () => (await import("./keys-list.js")).keysListCommand,
  },
  {
    name: "keys revoke",
    summary: "revoke an access key: refused everywhere within a second",
    load: async () => (await import("./keys-revoke.js")).keysRevokeCommand,
  },
  {
    name: "eval run",
    summary: "evaluate a candidate agent against recorded runs",
    load: async () => (await import("./eval-run.js")).evalRunCommand,
  },
  {
    name: "eval list",
    summary: "list evaluations, newest first",
    load: async () => (await import("./eval-list.js")).evalListCommand,
  },
  {
    name: "eval show",
    summary: "show an evaluation, changed cases first",
    load: async () => (await import("./eval-show.js")).evalShowCommand,
  },
  {
    name: "eval export",
    summary: "write an evaluation as JSON or JUnit XML",
    load: async () => (await import("./eval-export.js")).evalExportCommand,
  },
  {
    name: "eval sets save",
    summary: "save a named set of recorded runs that evaluations take",
    load: async () => (await import("./eval-sets-save.js")).evalSetSaveCommand,
  },
  {
    name: "eval sets list",
    summary: "list the saved run sets",
    load: async () => (await import("./eval-sets-list.js")).evalSetListCommand,
  },
  {
    name: "eval sets show",
    summary: "show a saved run set and its runIds",
    load: async () => (await import("./eval-sets-show.js")).evalSetShowCommand,
  },
  {
    name: "schedules upsert",
    summary: "create or replace a schedule that fires runs on a cron expression or an interval",
    load: async () => (await import("./schedules-upsert.js")).schedulesUpsertCommand,
  },
  {
    name: "schedules list",
    summary: "list schedules with their next and last fire and newest runs",
    load: async () => (await import("./schedules-list.js")).schedulesListCommand,
  },
  {
    name: "schedules pause",
    summary: "stop a schedule ticking until resumed",
    load: async () => (await import("./schedules-change.js")).schedulesPauseCommand,
  },
  {
    name: "schedules resume",
    summary: "let a paused schedule tick again",
    load: async () => (await import("./schedules-change.js")).schedulesResumeCommand,
  },
  {
    name: "schedules remove",
    summary: "delete a schedule (its runs stay)",
    load: async () => (await import("./schedules-change.js")).schedulesRemoveCommand,
  },
  {
    name: "doctor",
    summary: "check Redis and errand's processes, with the fix for each problem",
    load: async () => (await import("./doctor.js")).doctorCommand,
  },
  {
    name: "bench",
    summary: "measure throughput, latency and cost per run beside raw BullMQ and Redis streams",
    load: async () => (await import("./bench.js")).benchCommand,
  },
];
