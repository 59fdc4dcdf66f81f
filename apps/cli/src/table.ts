/**
 * Plain tables for the terminal: aligned columns separated by two spaces,
 * cells cut to a maximum width with `…`, no borders and no colours.
 */

/** The widest a cell may be unless the caller says otherwise. */
const DEFAULT_CELL_WIDTH = 60;

/** `text` on one line, cut to `width` characters (the last one becoming `…`). */
export function truncateCell(text: string, width: number = DEFAULT_CELL_WIDTH): string {
  const line = text.replace(/\s+/g, " ");
  const chars = [...line];
  if (chars.length <= width) return line;
  return `${chars.slice(0, Math.max(0, width - 1)).join("")}…`;
}

function displayWidth(text: string): number {
  return [...text].length;
}

/**
 * The lines of a table. Every row has the same number of cells (the first
 * row is usually the header); each cell is cut to `maxWidths[i]` (default
 * {@link DEFAULT_CELL_WIDTH}) and padded to its column's width. The last
 * column is not padded, so lines carry no trailing spaces.
 */
export function formatTable(
  rows: readonly (readonly string[])[],
  maxWidths: readonly (number | undefined)[] = [],
): string[] {
  const cells = rows.map((row) =>
    row.map((cell, i) => truncateCell(cell, maxWidths[i] ?? DEFAULT_CELL_WIDTH)),
  );
  const columns = Math.max(0, ...cells.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, i) =>
    Math.max(0, ...cells.map((row) => displayWidth(row[i] ?? ""))),
  );
  return cells.map((row) =>
    row
      .map((cell, i) =>
        i === row.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - displayWidth(cell)),
      )
      .join("  ")
      .trimEnd(),
  );
}
