/**
 * The runs: filters by status, agent and parent, a search box (runId or
 * metadata value), newest first, older pages on request, each settled run
 * with its tokens and cost; runs can be selected and cancelled (the open
 * ones) or re-run at once, or, in a filtered list, every open run the
 * filters match cancelled, every run they match re-run. The first page is
 * read again whenever the overview stream says something changed.
 */
import { type ListPage, listRuns, type RunRow, type RunsFilter, type RunsQuery } from "../api.js";
import { type MatchingFilters, RunSelection } from "../components/run-selection.js";
import { statusBadge } from "../components/status.js";
import { h, link, replaceChildren } from "../dom.js";
import {
  formatAgo,
  formatCount,
  formatDateTime,
  formatSpan,
  formatUsd,
  shortRunId,
} from "../format.js";
import { listenToOverview } from "../live-overview.js";
import type { Mounted } from "../router.js";

const STATUSES = ["", "queued", "running", "succeeded", "failed", "cancelled"];
const PAGE_SIZE = 50;

function queryOf(params: URLSearchParams): RunsQuery {
  const pick = (key: string) => params.get(key) ?? undefined;
  return { q: pick("q"), status: pick("status"), agent: pick("agent"), parent: pick("parent") };
}

function routeOf(query: RunsQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value) params.set(key, value);
  const search = params.toString();
  return `/runs${search ? `?${search}` : ""}`;
}

/** The list's filters that are set, when one is; `undefined` otherwise. */
function filterOf(query: RunsQuery): RunsFilter | undefined {
  const filter: RunsFilter = {};
  for (const key of ["q", "status", "agent", "parent"] as const) {
    const value = query[key]?.trim();
    if (value) filter[key] = value;
  }
  return Object.keys(filter).length === 0 ? undefined : filter;
}

/**
 * What "Cancel all matching" and "Re-run all matching" send: the filters
 * set — for a cancel, only when the status filter leaves room for open runs.
 */
function matchingFilters(query: RunsQuery): MatchingFilters {
  const filter = filterOf(query);
  if (filter === undefined) return {};
  const settled = query.status && query.status !== "queued" && query.status !== "running";
  return settled ? { rerun: filter } : { cancel: filter, rerun: filter };
}

function matchNote(row: RunRow): string | null {
  if (row.match === undefined) return null;
  return row.match.in === "runId" ? "runId" : `${row.match.key}: ${row.match.value}`;
}

/** The run's cost in US dollars once it has settled, when its worker priced its model. */
function costCell(row: RunRow): HTMLTableCellElement {
  if (row.costUsd === undefined) {
    const why = row.usage === undefined ? "the cost so far is on the run's page" : "not priced";
    return h("td", { class: "num muted", title: why }, "—");
  }
  return h("td", { class: "num", testid: "run-cost" }, formatUsd(row.costUsd));
}

/** The run's tokens in and out once it has settled. */
function tokensCell(row: RunRow): HTMLTableCellElement {
  if (row.usage === undefined) {
    return h("td", { class: "num muted", title: "tokens so far are on the run's page" }, "—");
  }
  const { inputTokens, outputTokens } = row.usage;
  return h(
    "td",
    {
      class: "num",
      testid: "run-tokens",
      title: `${formatCount(inputTokens)} input tokens, ${formatCount(outputTokens)} output tokens`,
    },
    `${formatCount(inputTokens)} / ${formatCount(outputTokens)}`,
  );
}

function rowOf(row: RunRow, selection: RunSelection): HTMLTableRowElement {
  return h(
    "tr",
    { testid: "run-row", attrs: { "data-run-id": row.runId, "data-status": row.status } },
    selection.cellOf(row),
    h("td", {}, statusBadge(row.status)),
    h(
      "td",
      {},
      link(
        `/runs/${row.runId}`,
        { class: "mono", title: row.runId, testid: "run-link" },
        row.runId,
      ),
    ),
    h("td", {}, row.agent),
    h(
      "td",
      {},
      row.parentRunId === undefined
        ? h("span", { class: "muted" }, "—")
        : link(
            `/runs/${row.parentRunId}`,
            { class: "mono", title: row.parentRunId },
            shortRunId(row.parentRunId),
          ),
    ),
    h("td", { title: formatDateTime(row.createdAt) }, formatAgo(row.createdAt)),
    h(
      "td",
      { class: "num" },
      row.settledAt === undefined && row.status !== "running"
        ? "—"
        : formatSpan(row.createdAt, row.settledAt),
    ),
    tokensCell(row),
    costCell(row),
    h(
      "td",
      {},
      row.error ? h("span", { class: "tag bad" }, row.error.code) : null,
      matchNote(row) ? h("span", { class: "match" }, matchNote(row)) : null,
    ),
  );
}

/** Mounts the runs view for the route's `params` into `main`. */
export function showRuns(main: HTMLElement, params: URLSearchParams): Mounted {
  const query = queryOf(params);
  const search = h("input", {
    class: "input grow",
    testid: "search",
    attrs: {
      type: "search",
      placeholder: "Search a runId, the start of one, or a metadata value",
      value: query.q ?? "",
    },
  });
  const status = h(
    "select",
    { class: "input", testid: "status-filter" },
    STATUSES.map((value) =>
      h(
        "option",
        { attrs: { value, ...(value === (query.status ?? "") ? { selected: "" } : {}) } },
        value || "any status",
      ),
    ),
  );
  const agent = h("input", {
    class: "input",
    testid: "agent-filter",
    attrs: { placeholder: "agent", value: query.agent ?? "" },
  });
  const parent = h("input", {
    class: "input",
    testid: "parent-filter",
    attrs: { placeholder: "parent runId", value: query.parent ?? "" },
  });
  const form = h(
    "form",
    {
      class: "filters",
      on: {
        submit: (event) => {
          event.preventDefault();
          location.hash = routeOf({
            q: search.value.trim(),
            status: status.value,
            agent: agent.value.trim(),
            parent: parent.value.trim(),
          });
        },
      },
    },
    search,
    status,
    agent,
    parent,
    h(
      "button",
      { class: "button primary", testid: "search-button", attrs: { type: "submit" } },
      "Search",
    ),
  );
  const rows = h("tbody", {});
  const selection = new RunSelection(() => void load(false), matchingFilters(query));
  const summary = h("p", { class: "muted small", testid: "runs-summary" });
  const more = h("button", { class: "button", testid: "load-more" }, "Older runs");
  const table = h(
    "table",
    { class: "table runs", testid: "runs-table" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        selection.headerCell(),
        ["status", "run", "agent", "parent", "created", "took", "tokens in / out", "cost", ""].map(
          (label) => h("th", {}, label),
        ),
      ),
    ),
    rows,
  );
  replaceChildren(
    main,
    h("h1", {}, "Runs"),
    form,
    selection.bar,
    selection.rerunPanel,
    h("section", { class: "panel flush" }, table),
    h("div", { class: "pager" }, summary, more),
  );

  let cursor: string | undefined;
  let pages = 0;
  let loading = false;

  async function load(next: boolean): Promise<void> {
    if (loading) return;
    loading = true;
    try {
      const page: ListPage<RunRow> = await listRuns({
        ...query,
        limit: PAGE_SIZE,
        ...(next && cursor ? { cursor } : {}),
      });
      if (!next) {
        rows.replaceChildren();
        selection.forgetRows();
        pages = 0;
      }
      pages += 1;
      rows.append(...page.items.map((row) => rowOf(row, selection)));
      selection.rowsShown(page.hasMore);
      if (rows.children.length === 0) {
        rows.append(
          h(
            "tr",
            {},
            h(
              "td",
              { class: "empty", attrs: { colspan: "9" } },
              query.q ? "No run matches." : "No run yet.",
            ),
          ),
        );
      }
      cursor = page.hasMore ? page.nextCursor : undefined;
      more.hidden = cursor === undefined;
      const scanned = page.scanned === undefined ? "" : ` · looked at ${page.scanned} runs`;
      summary.textContent = `${rows.querySelectorAll("[data-run-id]").length} shown${scanned}`;
    } catch (error) {
      summary.textContent = (error as Error).message;
      summary.className = "error-text";
    } finally {
      loading = false;
    }
  }

  more.addEventListener("click", () => void load(true));
  void load(false);
  const stop = listenToOverview((message) => {
    if (message.changed && pages <= 1) void load(false);
  });
  return { stop };
}
