/**
 * The names of errand's MCP tools, in one place: answers name them in
 * `nextAction` and `retryAction`, so a caller follows a hint to a tool that exists.
 */
export const TOOL_NAMES = {
  listAgents: "list_agents",
  startRuns: "start_runs",
  waitRuns: "wait_runs",
  getRun: "get_run",
  cancelRuns: "cancel_runs",
  listWaiting: "list_waiting",
  answerWaiting: "answer_waiting",
} as const;
