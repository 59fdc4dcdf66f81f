/**
 * The overview: headline numbers (each a card opening the runs it counts,
 * where a list can show them), runs settled per minute, each queue's
 * jobs and recent runs, and the workers with their heartbeats — redrawn as
 * the overview stream sends it.
 */
import { getJson, type Overview } from "../api.js";
import { throughputChart } from "../components/throughput-chart.js";
import { type Child, h, link, replaceChildren } from "../dom.js";
import { formatAgo, formatCount, formatDuration, formatRate } from "../format.js";
import { listenToOverview } from "../live-overview.js";
import type { Mounted } from "../router.js";

/** A headline number; with `route`, a card that opens the runs it counts. */
function stat(
  label: string,
  value: string,
  testid: string,
  note?: Child,
  route?: string,
): HTMLElement {
  const content = [
    h("div", { class: "stat-label" }, label),
    h("div", { class: "stat-value", testid }, value),
    note === undefined ? null : h("div", { class: "stat-note" }, note),
  ];
  if (route === undefined) return h("div", { class: "stat" }, content);
  return link(route, { class: "stat stat-link", testid: `${testid}-card` }, content);
}

function table(headers: readonly string[], rows: readonly HTMLTableRowElement[], empty: string) {
  return h(
    "table",
    { class: "table" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        headers.map((header) => h("th", {}, header)),
      ),
    ),
    h(
      "tbody",
      {},
      rows.length > 0
        ? rows
        : h(
            "tr",
            {},
            h("td", { class: "empty", attrs: { colspan: String(headers.length) } }, empty),
          ),
    ),
  );
}

const num = (value: number, testid?: string) =>
  h(
    "td",
    { class: value === 0 ? "num zero" : "num", ...(testid ? { testid } : {}) },
    formatCount(value),
  );

/**
 * A queue spread over shards says over how many (its counts are their sums),
 * and names the shards no live worker of it takes: their runs wait.
 */
function shardNote(queue: Overview["queues"][number]): Child {
  if (queue.shards <= 1) return null;
  const untaken = queue.untakenShards;
  if (untaken.length === 0) {
    return h("div", { class: "muted small", testid: "queue-shards" }, `${queue.shards} shards`);
  }
  const named = `shard${untaken.length === 1 ? "" : "s"} ${untaken.join(", ")}`;
  return h(
    "div",
    { class: "small warning-text", testid: "queue-shards" },
    `${queue.shards} shards; no live worker takes ${named}: ${untaken.length === 1 ? "its" : "their"} runs wait`,
  );
}

/** What a queue without a live worker says: its runs wait, since when nobody took them. */
function idleNote(queue: Overview["queues"][number]): Child {
  if (queue.live) return null;
  const since =
    queue.lastSeenAt === undefined
      ? "no live worker"
      : `no live worker since ${new Date(queue.lastSeenAt).toLocaleTimeString("en-GB")}`;
  const waiting = queue.waiting + queue.delayed;
  return h(
    "div",
    { class: waiting > 0 ? "small warning-text" : "muted small", testid: "queue-idle" },
    waiting > 0 ? `${formatCount(waiting)} runs waiting, ${since}` : since,
  );
}

function render(overview: Overview): Child {
  const { throughput, runs, collectors } = overview;
  const queues = overview.queues.map((queue) =>
    h(
      "tr",
      { testid: "queue-row", attrs: { "data-queue": queue.name } },
      h("td", { class: "mono" }, queue.name, shardNote(queue), idleNote(queue)),
      h(
        "td",
        {},
        queue.agents.map((agent) =>
          link(`/runs?agent=${encodeURIComponent(agent)}`, { class: "chip" }, agent),
        ),
      ),
      num(queue.waiting, "queue-waiting"),
      num(queue.active, "queue-active"),
      num(queue.delayed),
      num(queue.succeeded),
      num(queue.failed),
      num(queue.cancelled),
    ),
  );
  const versions = overview.versions.map((version) =>
    h(
      "tr",
      {
        testid: "version-row",
        attrs: { "data-agent": version.agent, "data-version": version.version },
      },
      h(
        "td",
        {},
        link(`/runs?agent=${encodeURIComponent(version.agent)}`, { class: "chip" }, version.agent),
      ),
      h("td", { class: "mono" }, version.version),
      h(
        "td",
        { testid: "version-live" },
        h("span", { class: version.live ? "dot dot-live" : "dot dot-stale" }),
        version.live
          ? "live"
          : `no live worker since ${formatAgo(version.unavailableSince ?? version.lastSeenAt)}`,
      ),
      num(version.waitingRuns, "version-waiting"),
    ),
  );
  const workers = overview.workers.map((worker) =>
    h(
      "tr",
      { testid: "worker-row" },
      h("td", { class: "mono" }, worker.workerId),
      h("td", {}, `${worker.host} · pid ${worker.pid}`),
      h(
        "td",
        {},
        worker.agents.map((agent) => h("span", { class: "chip" }, agent)),
      ),
      h("td", { class: "num" }, String(worker.concurrency)),
      h(
        "td",
        {},
        h("span", { class: worker.stale ? "dot dot-stale" : "dot dot-live" }),
        worker.stale
          ? `stale — ${formatAgo(worker.lastSeenAt)}`
          : `${formatDuration(worker.heartbeatAgeMs)} ago`,
      ),
      h("td", { title: worker.startedAt }, formatAgo(worker.startedAt)),
    ),
  );
  return [
    h(
      "section",
      { class: "stats" },
      stat(
        "Active runs",
        formatCount(runs.active),
        "stat-active",
        "queued or running",
        "/runs?status=running",
      ),
      stat(
        "Settled / min",
        throughput.settledPerMinute.toFixed(1),
        "stat-rate",
        `${formatCount(throughput.settled)} in ${throughput.windowMinutes} min`,
        "/runs",
      ),
      stat(
        "Failure rate",
        formatRate(throughput.failureRate),
        "stat-failure-rate",
        `${formatCount(throughput.failed)} failed`,
        "/runs?status=failed",
      ),
      stat(
        "Collector backlog",
        formatCount(collectors.lag + collectors.pending),
        "stat-backlog",
        `${formatCount(collectors.lag)} unread · ${formatCount(collectors.pending)} pending · ${formatCount(collectors.deadLettered)} dead`,
      ),
    ),
    h(
      "section",
      { class: "panel" },
      h("h2", {}, `Runs settled per minute — last ${throughput.windowMinutes} minutes`),
      throughputChart(throughput),
      h(
        "div",
        { class: "legend" },
        h("span", { class: "key key-succeeded" }, "succeeded"),
        h("span", { class: "key key-failed" }, "failed"),
        h("span", { class: "key key-cancelled" }, "cancelled"),
      ),
    ),
    h(
      "section",
      { class: "panel" },
      h("h2", {}, "Queues"),
      table(
        ["queue", "agents", "waiting", "active", "parked", "succeeded", "failed", "cancelled"],
        queues,
        "No queue yet.",
      ),
      h(
        "p",
        { class: "muted small" },
        `Jobs waiting, active and parked now; runs settled in the last ${throughput.windowMinutes} minutes.`,
      ),
    ),
    h(
      "section",
      { class: "panel" },
      h("h2", {}, "Agent versions"),
      table(["agent", "version", "workers", "waiting"], versions, "No versioned agent yet."),
      h(
        "p",
        { class: "muted small" },
        "A run waits for a worker of the version it was fired for; without one past the reaper's grace, it fails agent_version_unavailable.",
      ),
    ),
    h(
      "section",
      { class: "panel" },
      h("h2", {}, "Workers"),
      table(
        ["worker", "where", "agents", "slots", "heartbeat", "started"],
        workers,
        "No worker is running.",
      ),
    ),
    h(
      "p",
      { class: "muted small right" },
      `Updated ${new Date(overview.at).toLocaleTimeString("en-GB")}`,
    ),
  ];
}

/** Mounts the overview into `main`. */
export function showOverview(main: HTMLElement): Mounted {
  const body = h(
    "div",
    { class: "overview", testid: "overview" },
    h("p", { class: "muted" }, "Loading…"),
  );
  replaceChildren(main, h("h1", {}, "Overview"), body);
  let live = false;
  getJson<Overview>("/api/overview")
    .then((overview) => {
      if (!live) replaceChildren(body, render(overview));
    })
    .catch((error: Error) => replaceChildren(body, h("p", { class: "error-text" }, error.message)));
  const stop = listenToOverview((message) => {
    live = true;
    replaceChildren(body, render(message.overview));
  });
  return { stop };
}
