/**
 * Building the page's elements. Text is always set as text (never parsed
 * as HTML), so nothing a run holds can inject markup.
 */

/** What an element may contain. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

/** What an element is made with. */
export interface Props {
  class?: string;
  /** `data-testid`, for the browser test. */
  testid?: string;
  title?: string;
  /** Other attributes, set as they are. */
  attrs?: Record<string, string | undefined>;
  /** Event listeners. */
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

function append(parent: Node, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    for (const inner of child) append(parent, inner);
  } else if (child instanceof Node) {
    parent.appendChild(child);
  } else {
    parent.appendChild(document.createTextNode(String(child)));
  }
}

/** A new `tag` element with `props` and `children`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.class) element.className = props.class;
  if (props.testid) element.dataset.testid = props.testid;
  if (props.title) element.title = props.title;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value !== undefined) element.setAttribute(name, value);
  }
  for (const [name, listener] of Object.entries(props.on ?? {})) {
    element.addEventListener(name, listener as EventListener);
  }
  append(element, children);
  return element;
}

/** Replaces everything inside `parent` with `children`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A link to a route of the page. */
export function link(route: string, props: Props, ...children: Child[]): HTMLAnchorElement {
  return h("a", { ...props, attrs: { ...props.attrs, href: `#${route}` } }, ...children);
}
