/** Numbers, times and durations as people read them. */

/** `1,234`. */
export function formatCount(value: number): string {
  return value.toLocaleString("en-US");
}

/**
 * US dollars for people: cents for a dollar or more (`$1.25`), else four
 * significant digits (`$0.0002280`), so a cheap run does not read as `$0.00`.
 */
export function formatUsd(value: number): string {
  if (value === 0) return "$0";
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toPrecision(4)}`;
}

/** `12.5%`, or `—` when there is no rate. */
export function formatRate(value: number | null): string {
  return value === null ? "—" : `${(value * 100).toFixed(value === 0 || value === 1 ? 0 : 1)}%`;
}

/** `850 ms`, `4.2 s`, `3 min 20 s`, `2 h 5 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.floor((ms % 60_000) / 1_000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** `5 s ago`, `3 min ago`, … from `iso` to `now`. */
export function formatAgo(iso: string, now: number = Date.now()): string {
  const ms = Math.max(0, now - Date.parse(iso));
  if (ms < 1_000) return "just now";
  return `${formatDuration(ms).replace(/ \d+ (s|min)$/, "")} ago`;
}

/** `14:03:27` (local time), the full date in the title. */
export function formatClock(iso: string): string {
  return new Date(iso).toLocaleTimeString("en-GB", { hour12: false });
}

/** `2026-01-02 14:03:27`. */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  return `${date.toLocaleDateString("en-CA")} ${formatClock(iso)}`;
}

/** The time between two instants, or from `from` to now when `to` is absent. */
export function formatSpan(from: string | undefined, to: string | undefined): string {
  if (from === undefined) return "—";
  const end = to === undefined ? Date.now() : Date.parse(to);
  return formatDuration(Math.max(0, end - Date.parse(from)));
}

/** `R01JD5X8K…QH7N` — a long runId shortened for tables (the whole id in the title). */
export function shortRunId(runId: string): string {
  return runId.length > 16 ? `${runId.slice(0, 11)}…${runId.slice(-5)}` : runId;
}

/** `12.3 KB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1_024) return `${bytes} B`;
  if (bytes < 1_024 * 1_024) return `${(bytes / 1_024).toFixed(1)} KB`;
  return `${(bytes / 1_024 / 1_024).toFixed(1)} MB`;
}
