/**
 * The cursors of errand's MCP pages: a position in a list the caller sends
 * again (`wait_runs`' runIds) or a sort key (`get_run`'s events, by seq),
 * encoded as errand's cursors are (`encodeCursor`), refused with
 * `invalid_spec` and the fix when they do not belong to the list.
 */
import { ErrandError } from "@errand/core";
import { decodeCursor, encodeCursor } from "@errand/core/ops";

/** The cursor of the list position after `end`, whose last item is `last`. */
export function positionCursor(end: number, last: string): string {
  return encodeCursor([end, last]);
}

/** The position `cursor` points at in `runIds`; 0 without one. */
export function positionOf(cursor: string | undefined, runIds: readonly string[]): number {
  if (cursor === undefined) return 0;
  const [position, last] = decodeCursor(cursor);
  if (
    typeof position !== "number" ||
    !Number.isInteger(position) ||
    position < 1 ||
    position >= runIds.length ||
    runIds[position - 1] !== last
  ) {
    throw new ErrandError(
      "invalid_spec",
      "invalid cursor: it belongs to another list of runIds; pass the same runIds with the nextCursor of their previous page",
    );
  }
  return position;
}
