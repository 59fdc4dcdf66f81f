/**
 * The web page, as the package's build leaves it in `dist/page` (vite:
 * `index.html` and hashed assets). The files are read once, when the
 * dashboard starts, and served from memory: only those files, so no request
 * path reaches the file system. Everything is local: the page works offline.
 */
import { readdir, readFile } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** Where the build puts the page: `<package>/dist/page`. */
const PAGE_DIR = fileURLToPath(new URL("../../dist/page/", import.meta.url));

/** One file of the page. */
export interface PageFile {
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
  /** Hashed assets never change: they may be cached for good. */
  immutable: boolean;
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".map": "application/json",
};

/** The page's files by URL path (`/index.html` also as `/`); empty when the page was not built. */
export async function loadPageFiles(dir: string = PAGE_DIR): Promise<Map<string, PageFile>> {
  const files = new Map<string, PageFile>();
  let names: string[];
  try {
    names = await readdir(dir, { recursive: true });
  } catch {
    return files;
  }
  for (const name of names) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (contentType === undefined) continue;
    const path = join(dir, name);
    const urlPath = `/${relative(dir, path).split(sep).join("/")}`;
    const body = new Uint8Array(await readFile(path));
    files.set(urlPath, { body, contentType, immutable: urlPath.startsWith("/assets/") });
  }
  const index = files.get("/index.html");
  if (index) files.set("/", index);
  return files;
}
