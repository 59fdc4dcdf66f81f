/**
 * What a candidate runs with in an evaluation, wherever it runs — in the
 * calling process (`run-case.ts`) or on a worker (`fleet-run-parts.ts`):
 * its tools answered from the recorded run's log in recorded mode
 * (docs/architecture/evaluations.md#recorded-tools), and parent services
 * that answer `spawn_agents` and `collect_agents` from the recorded run's
 * children (docs/architecture/evaluations.md#recorded-children), in both modes.
 */
import type { RunState } from "@errand/core";
import type { Agent } from "@errand/runtime";
import type { EventStore } from "@errand/store";
import { PARENT_SERVICES } from "../parents/parent-services.js";
import type { UnrecordedCallPolicy } from "./evaluation-record.js";
import { recordedCalls } from "./recorded-calls.js";
import { type CollectRuns, recordedParentServices } from "./recorded-children.js";
import { type CallLedger, recordedTool } from "./recorded-tools.js";

/** The tools the parent services answer, whose calls are always answered from the log. */
export const PARENT_TOOLS: ReadonlySet<string> = new Set(["spawn_agents", "collect_agents"]);

/** What a candidate's parts are made from. */
export interface CandidateSetup {
  /** The recorded run's folded log. */
  recorded: RunState;
  /** Where the recorded run's blobs are read from. */
  store: EventStore;
  collectRuns: CollectRuns;
  tools: "recorded" | "live";
  onUnrecorded: UnrecordedCallPolicy;
  /** Where each call's answer is told. */
  ledger: CallLedger;
}

/** `agent` with its tools as the evaluation answers them, and `services` with the recorded parent services. */
export function candidateParts(
  agent: Agent,
  setup: CandidateSetup,
  services: Readonly<Record<string, unknown>> = {},
): { agent: Agent; services: Record<string, unknown> } {
  const { recorded, store, collectRuns, onUnrecorded, ledger } = setup;
  const calls = recordedCalls(recorded, store);
  const tools =
    setup.tools === "live"
      ? agent.tools
      : agent.tools.map((tool) =>
          PARENT_TOOLS.has(tool.name) ? tool : recordedTool(tool, calls, onUnrecorded, ledger),
        );
  return {
    agent: { ...agent, tools },
    services: {
      ...services,
      [PARENT_SERVICES]: recordedParentServices(recorded, collectRuns, onUnrecorded, ledger),
    },
  };
}
