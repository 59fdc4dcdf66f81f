/**
 * The dashboard's page: a header with the views and the live indicator,
 * and the view of the current route.
 */
import { loadSession } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { startOverviewStream } from "./live-overview.js";
import { type Mounted, onRoute, type Route } from "./router.js";
import { showEvaluation, showEvaluations } from "./views/evaluations-view.js";
import { showOverview } from "./views/overview-view.js";
import { showRun } from "./views/run-view.js";
import { showRuns } from "./views/runs-view.js";
import { showSchedule, showSchedules } from "./views/schedules-view.js";

const main = h("main", { class: "main", testid: "main" });
const indicator = h("span", { class: "indicator", testid: "live-indicator" }, "connecting…");
const nav = {
  overview: h("a", { class: "nav-link", attrs: { href: "#/" } }, "Overview"),
  runs: h("a", { class: "nav-link", attrs: { href: "#/runs" } }, "Runs"),
  evaluations: h("a", { class: "nav-link", attrs: { href: "#/evaluations" } }, "Evaluations"),
  schedules: h(
    "a",
    { class: "nav-link", testid: "nav-schedules", attrs: { href: "#/schedules" } },
    "Schedules",
  ),
};
const badges = h("span", { class: "header-badges" });

document.body.replaceChildren(
  h(
    "header",
    { class: "header" },
    h(
      "a",
      { class: "brand", attrs: { href: "#/" } },
      h("span", { class: "brand-mark" }, "⟳"),
      "errand",
    ),
    h("nav", { class: "nav" }, nav.overview, nav.runs, nav.evaluations, nav.schedules),
    badges,
    indicator,
  ),
  main,
);

let mounted: Mounted;

function show(route: Route): void {
  mounted?.stop();
  nav.overview.classList.toggle("active", route.view === "overview");
  const evaluations = route.view === "evaluations" || route.view === "evaluation";
  nav.runs.classList.toggle("active", route.view === "runs" || route.view === "run");
  nav.evaluations.classList.toggle("active", evaluations);
  nav.schedules.classList.toggle("active", route.view === "schedules" || route.view === "schedule");
  if (route.view === "overview") mounted = showOverview(main);
  else if (route.view === "runs") mounted = showRuns(main, route.params);
  else if (route.view === "evaluations") mounted = showEvaluations(main);
  else if (route.view === "evaluation") mounted = showEvaluation(main, route.evaluationId);
  else if (route.view === "schedules") mounted = showSchedules(main);
  else if (route.view === "schedule") mounted = showSchedule(main, route.scheduleId);
  else mounted = showRun(main, route.runId);
  window.scrollTo(0, 0);
}

startOverviewStream((open) => {
  indicator.textContent = open ? "live" : "reconnecting…";
  indicator.classList.toggle("on", open);
});
loadSession()
  .then((session) => {
    replaceChildren(
      badges,
      h("span", { class: "chip" }, `prefix ${session.prefix}`),
      session.readOnly ? h("span", { class: "chip warn", testid: "read-only" }, "read-only") : null,
    );
  })
  .catch(() => undefined);
onRoute(show);
