import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { expect, test } from "vitest";
import { PagedList } from "@/components/console/paged-list";

type Page = { items: string[]; next: string | null };

const render = (read: { ok: true; data: Page } | { ok: false; message: string }) =>
  renderToStaticMarkup(
    createElement(PagedList<Page, string>, {
      read,
      rows: (d) => d.items,
      nextCursor: (d) => d.next,
      pagerHref: (next) => ({ nextHref: next ? `/x?cursor=${next}` : null, firstHref: null }),
      empty: createElement("p", null, "Nothing yet"),
      children: (rows) =>
        createElement(
          "ul",
          null,
          rows.map((r) => createElement("li", { key: r }, r)),
        ),
    }),
  );

test("the list scaffolding: the API's message for a refused read, the empty state, or the rows and the pager", () => {
  expect(render({ ok: false, message: "The cursor is not valid" })).toContain("The cursor is not valid");
  expect(render({ ok: true, data: { items: [], next: "c1" } })).toBe("<p>Nothing yet</p>");
  const full = render({ ok: true, data: { items: ["a", "b"], next: "c2" } });
  expect(full).toContain("<li>a</li><li>b</li>");
  expect(full).toContain('href="/x?cursor=c2"');
  expect(render({ ok: true, data: { items: ["a"], next: null } })).not.toContain("Pagination");
});
