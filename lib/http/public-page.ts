/**
 * The branded, script-free pages the public reaches without signing in (share links, unsubscribe):
 * inline styles only, a CSP that allows nothing else, never framed, never cached.
 */
export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function publicPage(title: string, section: string, body: string, status = 200): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;background:#f6f7f9;color:#111;margin:0}main{max-width:34rem;margin:4rem auto;background:#fff;border:1px solid #e3e5e8;border-radius:12px;padding:2rem}h1{font-size:1.25rem;margin:0 0 1rem}.brand{font-weight:600;color:#4f46e5;margin-bottom:1.5rem}ul{list-style:none;padding:0}li{display:flex;justify-content:space-between;align-items:center;gap:1rem;padding:.75rem 0;border-top:1px solid #eee}small{color:#666}button,a.button{background:#4f46e5;color:#fff;border:0;border-radius:8px;padding:.5rem 1rem;font:inherit;text-decoration:none;cursor:pointer}input{font:inherit;padding:.45rem;border:1px solid #ccc;border-radius:8px}label{display:block;margin:.5rem 0}.err{color:#b91c1c}</style></head>
<body><main><div class="brand">svc · ${esc(section)}</div>${body}</main></body></html>`;
  return new Response(html, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      "X-Frame-Options": "DENY",
      "Content-Security-Policy":
        "default-src 'none'; style-src 'unsafe-inline'; form-action *; base-uri 'none'; frame-ancestors 'none'",
    },
  });
}
