/**
 * Hash routes: `#/` the overview, `#/runs?…` the runs, `#/runs/<runId>` one
 * run, `#/evaluations` the evaluations, `#/evaluations/<id>` one of them,
 * `#/schedules` the schedules, `#/schedules/<id>` one of them. Each view renders into the main element and returns how to stop
 * (close its streams) when the route changes.
 */

/** A view mounted on the page; `stop` runs when another route is shown. */
export type Mounted = { stop(): void } | undefined;

/** A route the page knows. */
export type Route =
  | { view: "overview" }
  | { view: "runs"; params: URLSearchParams }
  | { view: "run"; runId: string }
  | { view: "evaluations" }
  | { view: "evaluation"; evaluationId: string }
  | { view: "schedules" }
  | { view: "schedule"; scheduleId: string };

/** The route of `hash` (`location.hash`). */
function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, "") || "/";
  const [pathname = "/", search = ""] = path.split("?", 2);
  const run = /^\/runs\/([^/]+)$/.exec(pathname);
  if (run?.[1] !== undefined) return { view: "run", runId: decodeURIComponent(run[1]) };
  if (pathname === "/runs") return { view: "runs", params: new URLSearchParams(search) };
  const evaluation = /^\/evaluations\/([^/]+)$/.exec(pathname);
  if (evaluation?.[1] !== undefined) {
    return { view: "evaluation", evaluationId: decodeURIComponent(evaluation[1]) };
  }
  if (pathname === "/evaluations") return { view: "evaluations" };
  const schedule = /^\/schedules\/([^/]+)$/.exec(pathname);
  if (schedule?.[1] !== undefined) {
    return { view: "schedule", scheduleId: decodeURIComponent(schedule[1]) };
  }
  if (pathname === "/schedules") return { view: "schedules" };
  return { view: "overview" };
}

/** Calls `show` with the current route now and whenever the hash changes. */
export function onRoute(show: (route: Route) => void): void {
  window.addEventListener("hashchange", () => show(parseRoute(location.hash)));
  show(parseRoute(location.hash));
}
