/**
 * The schedules (docs/guide/schedules.md): a list — each schedule's agent,
 * when it ticks, its overlap and catch-up, whether it is paused, its next
 * and last fire — with the form that creates one (`schedule-form.ts`), and
 * one schedule (its input and metadata too) with the runs it made, each a
 * link to its page, and buttons that pause or resume it and remove it
 * (confirmed, refused in read-only mode). Both are read again whenever the overview stream says something
 * changed (a tick fires a run).
 */
import {
  ApiError,
  listSchedules,
  loadSession,
  type OverviewMessage,
  readSchedule,
  removeSchedule,
  type ScheduleDetail,
  type ScheduleView,
  setSchedulePaused,
} from "../api.js";
import { confirmAction } from "../components/confirm.js";
import { facts, jsonBlock } from "../components/json-view.js";
import { scheduleForm } from "../components/schedule-form.js";
import { statusBadge } from "../components/status.js";
import { h, link, replaceChildren } from "../dom.js";
import { formatAgo, formatDateTime, formatDuration, formatSpan } from "../format.js";
import { listenToOverview } from "../live-overview.js";
import type { Mounted } from "../router.js";
import { toast } from "./toast.js";

/** `0 3 * * * (Europe/Paris)` or `every 30 s`. */
function cadenceOf(schedule: ScheduleView): string {
  if (schedule.cron !== undefined) return `${schedule.cron} (${schedule.timezone ?? "UTC"})`;
  return `every ${formatDuration(schedule.everyMs ?? 0)}`;
}

/** A time as `14:03:27 (in 12 s)` / `(3 min ago)`, or `—`. */
function whenCell(iso: string | undefined, testid: string): HTMLTableCellElement {
  if (iso === undefined) return h("td", { class: "muted", testid }, "—");
  const ms = Date.parse(iso) - Date.now();
  const relative = ms > 0 ? `in ${formatDuration(ms)}` : formatAgo(iso);
  return h("td", { testid, title: formatDateTime(iso) }, `${formatDateTime(iso)} (${relative})`);
}

function stateChip(schedule: ScheduleView): HTMLElement {
  return schedule.paused
    ? h("span", { class: "chip warn", testid: "schedule-state" }, "paused")
    : h("span", { class: "chip", testid: "schedule-state" }, "active");
}

function scheduleRow(schedule: ScheduleView): HTMLTableRowElement {
  return h(
    "tr",
    {
      testid: "schedule-row",
      attrs: { "data-schedule-id": schedule.id, "data-paused": String(schedule.paused) },
    },
    h(
      "td",
      {},
      link(
        `/schedules/${encodeURIComponent(schedule.id)}`,
        { class: "mono", testid: "schedule-link" },
        schedule.id,
      ),
    ),
    h("td", {}, schedule.agent),
    h("td", { class: "mono" }, cadenceOf(schedule)),
    h("td", {}, schedule.overlap),
    h("td", {}, schedule.catchUp),
    h("td", {}, stateChip(schedule)),
    whenCell(schedule.nextFireAt, "schedule-next"),
    whenCell(schedule.lastFireAt, "schedule-last"),
    h("td", { class: "num" }, String(schedule.lastRuns.length)),
  );
}

/** A view read again whenever the overview changes. */
interface LiveView {
  /** Reads and draws it again now. */
  refresh(): Promise<void>;
  stop(): void;
}

/**
 * Reads with `read` and draws with `draw` now and whenever the overview
 * changes; a failed read is shown in `target` under `title`.
 */
function liveView<T>(
  target: HTMLElement,
  title: string,
  read: () => Promise<T>,
  draw: (value: T) => void,
): LiveView {
  let stopped = false;
  let reading = false;
  const refresh = async () => {
    if (reading) return;
    reading = true;
    try {
      const value = await read();
      if (!stopped) draw(value);
    } catch (error) {
      if (!stopped) {
        replaceChildren(
          target,
          h("h1", {}, title),
          h("p", { class: "error-text" }, (error as Error).message),
        );
      }
    } finally {
      reading = false;
    }
  };
  void refresh();
  const stop = listenToOverview((message) => {
    if (message.changed) void refresh();
  });
  return {
    refresh,
    stop() {
      stopped = true;
      stop();
    },
  };
}

/** The agents the live workers run, each once, sorted. */
function workerAgents(message: OverviewMessage): string[] {
  return [...new Set(message.overview.workers.flatMap((worker) => worker.agents))].sort();
}

/** Mounts the list of schedules, and the form that creates one, into `main`. */
export function showSchedules(main: HTMLElement): Mounted {
  const head = [
    "schedule",
    "agent",
    "when",
    "overlap",
    "catch-up",
    "state",
    "next fire",
    "last fire",
    "runs kept",
  ];
  let listed = new Set<string>();
  const table = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const form = scheduleForm({
    isListed: (id) => listed.has(id),
    saved(schedule) {
      toast(`Schedule ${schedule.id} saved`);
      // Creating fires no run, so the overview may not change: the list is read again here.
      void view.refresh();
    },
  });
  const newButton = h(
    "button",
    {
      class: "button primary",
      testid: "schedule-new-button",
      on: { click: () => form.open() },
    },
    "New schedule",
  );
  newButton.disabled = true;
  replaceChildren(
    main,
    h("div", { class: "run-header" }, h("h1", {}, "Schedules"), newButton),
    form.element,
    table,
  );
  // The form keeps what is typed in it: only the table is drawn again.
  const view = liveView(table, "Schedules", listSchedules, ({ items }) => {
    listed = new Set(items.map((schedule) => schedule.id));
    const rows =
      items.length === 0
        ? [
            h(
              "tr",
              {},
              h(
                "td",
                { class: "empty", attrs: { colspan: String(head.length) } },
                "No schedule yet: New schedule (or errand schedules upsert) makes one.",
              ),
            ),
          ]
        : items.map(scheduleRow);
    replaceChildren(
      table,
      h(
        "section",
        { class: "panel flush" },
        h(
          "table",
          { class: "table", testid: "schedules-table" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              head.map((label) => h("th", {}, label)),
            ),
          ),
          h("tbody", {}, rows),
        ),
      ),
    );
  });
  void loadSession().then(({ readOnly }) => {
    if (readOnly) newButton.title = "This dashboard is read-only.";
    else newButton.disabled = false;
  });
  const stopAgents = listenToOverview((message) => form.offerAgents(workerAgents(message)));
  return {
    stop() {
      view.stop();
      stopAgents();
    },
  };
}

function runRow({ runId, tick, run }: ScheduleDetail["runs"][number]): HTMLTableRowElement {
  return h(
    "tr",
    { testid: "schedule-run", attrs: { "data-run-id": runId, "data-status": run?.status ?? "" } },
    h("td", { title: tick }, formatDateTime(tick)),
    h(
      "td",
      {},
      run === undefined ? h("span", { class: "muted" }, "expired") : statusBadge(run.status),
    ),
    h("td", {}, link(`/runs/${runId}`, { class: "mono", testid: "run-link" }, runId)),
    h(
      "td",
      { class: "num" },
      run === undefined || (run.settledAt === undefined && run.status !== "running")
        ? "—"
        : formatSpan(run.createdAt, run.settledAt),
    ),
  );
}

/** The pause / resume button of `schedule`: asks, then pauses or resumes it and calls `after`. */
function pauseButton(schedule: ScheduleView, readOnly: boolean, after: () => void): HTMLElement {
  const pausing = !schedule.paused;
  const button = h(
    "button",
    { class: pausing ? "button danger" : "button primary", testid: "schedule-pause-button" },
    pausing ? "Pause" : "Resume",
  );
  if (readOnly) {
    button.disabled = true;
    button.title = "This dashboard is read-only.";
  }
  button.addEventListener("click", async () => {
    const answer = await confirmAction({
      title: `${pausing ? "Pause" : "Resume"} schedule ${schedule.id}?`,
      message: pausing
        ? "It fires no run until resumed; its runs so far are left as they are."
        : "It fires again from its next tick.",
      confirmLabel: pausing ? "Pause" : "Resume",
      danger: pausing,
    });
    if (answer === undefined) return;
    try {
      const now = await setSchedulePaused(schedule.id, pausing);
      toast(`Schedule ${now.id} ${now.paused ? "paused" : "resumed"}`);
      after();
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), true);
    }
  });
  return button;
}

/** The remove button of `schedule`: asks, then removes it and opens the list. */
function removeButton(schedule: ScheduleView, readOnly: boolean): HTMLElement {
  const button = h(
    "button",
    { class: "button danger", testid: "schedule-remove-button" },
    "Remove",
  );
  if (readOnly) {
    button.disabled = true;
    button.title = "This dashboard is read-only.";
  }
  button.addEventListener("click", async () => {
    const answer = await confirmAction({
      title: `Remove schedule ${schedule.id}?`,
      message: "It is deleted and fires no more runs; the runs it made stay.",
      confirmLabel: "Remove",
      danger: true,
    });
    if (answer === undefined) return;
    try {
      await removeSchedule(schedule.id);
      toast(`Schedule ${schedule.id} removed`);
      location.hash = "#/schedules";
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), true);
    }
  });
  return button;
}

/** Mounts schedule `id` and the runs it made into `main`. */
export function showSchedule(main: HTMLElement, id: string): Mounted {
  const title = `Schedule ${id}`;
  replaceChildren(main, h("h1", {}, title), h("p", { class: "muted" }, "Loading…"));
  const read = async () => ({ detail: await readSchedule(id), session: await loadSession() });
  const view = liveView(main, title, read, ({ detail, session }) => {
    const { schedule, runs } = detail;
    replaceChildren(
      main,
      h(
        "div",
        { class: "run-header" },
        h(
          "h1",
          {},
          "Schedule ",
          h("span", { class: "mono" }, schedule.id),
          " ",
          stateChip(schedule),
        ),
        h(
          "div",
          { class: "actions" },
          // Pausing fires no run, so the overview may not change: the view is read again here.
          pauseButton(schedule, session.readOnly, () => void view.refresh()),
          removeButton(schedule, session.readOnly),
        ),
      ),
      h(
        "section",
        { class: "panel", testid: "schedule-facts" },
        facts([
          ["agent", schedule.agent],
          ["when", cadenceOf(schedule)],
          ["overlap", schedule.overlap],
          ["catch-up", schedule.catchUp],
          [
            "next fire",
            schedule.nextFireAt === undefined ? "—" : formatDateTime(schedule.nextFireAt),
          ],
          [
            "last fire",
            schedule.lastFireAt === undefined ? "—" : formatDateTime(schedule.lastFireAt),
          ],
          ["created", formatDateTime(schedule.createdAt)],
          ["updated", formatDateTime(schedule.updatedAt)],
        ]),
        jsonBlock(schedule.input ?? null, { label: "input" }),
        schedule.metadata === undefined
          ? null
          : jsonBlock(schedule.metadata, { label: "metadata" }),
      ),
      h(
        "h2",
        {},
        "Runs it made ",
        link(
          `/runs?q=${encodeURIComponent(schedule.id)}`,
          { class: "small", testid: "schedule-runs-search" },
          "search the runs list",
        ),
      ),
      h(
        "section",
        { class: "panel flush" },
        h(
          "table",
          { class: "table", testid: "schedule-runs" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ["tick", "status", "run", "took"].map((label) => h("th", {}, label)),
            ),
          ),
          h(
            "tbody",
            {},
            runs.length === 0
              ? h("tr", {}, h("td", { class: "empty", attrs: { colspan: "4" } }, "No run yet."))
              : runs.map(runRow),
          ),
        ),
      ),
    );
  });
  return view;
}
