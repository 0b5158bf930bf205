import { getDb } from "@/db";
import { unsubscribe, unsubscribeState } from "@/lib/audiences/unsubscribe";
import { esc, publicPage } from "./public-page";

/**
 * `/u/{token}`, the List-Unsubscribe link of broadcast messages (lib/audiences/unsubscribe.ts):
 * POST unsubscribes at once (RFC 8058 one-click: mail clients post `List-Unsubscribe=One-Click`;
 * the page's button posts the same), GET only shows the page with the button.
 */
const page = (title: string, body: string, status = 200) => publicPage(title, "email preferences", body, status);
const unknown = () =>
  page(
    "Link not valid",
    "<h1>This unsubscribe link is not valid.</h1><p>It may have been changed or cut short. Use the link from the email itself.</p>",
    404,
  );

export async function serveUnsubscribePage(token: string): Promise<Response> {
  const view = await unsubscribeState(await getDb(), token);
  if (!view) return unknown();
  if (view.unsubscribed)
    return page(
      "Unsubscribed",
      `<h1>You are unsubscribed</h1><p><strong>${esc(view.email)}</strong> gets no more emails from <strong>${esc(view.audience)}</strong>.</p>`,
    );
  return page(
    "Unsubscribe",
    `<h1>Unsubscribe from ${esc(view.audience)}?</h1><p><strong>${esc(view.email)}</strong> will get no more emails sent to this list.</p><form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
  );
}

export async function serveUnsubscribe(token: string): Promise<Response> {
  const view = await unsubscribe(await getDb(), token);
  if (!view) return unknown();
  return page(
    "Unsubscribed",
    `<h1>You are unsubscribed</h1><p><strong>${esc(view.email)}</strong> gets no more emails from <strong>${esc(view.audience)}</strong>.</p>`,
  );
}
