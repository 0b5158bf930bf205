import type { ReactNode } from "react";
import { Nav, type NavItem } from "@/components/console/nav";
import { OrgProvider } from "@/components/console/org-context";
import { OrgSwitcher } from "@/components/console/org-switcher";
import { Providers } from "@/components/console/providers";
import { Sidebar } from "@/components/console/sidebar";
import type { ConsoleContext } from "@/lib/console/context";
import type { Permission } from "@/lib/auth/roles";
import { signOutAction } from "@/lib/console/actions/organizations";

const NAV: (NavItem & { needs: Permission | null })[] = [
  { href: "/", label: "Overview", needs: "messages:read" },
  { href: "/inboxes", label: "Inboxes", needs: "inboxes:read" },
  { href: "/threads", label: "Threads", needs: "messages:read" },
  { href: "/messages", label: "Messages", needs: "messages:read" },
  { href: "/domains", label: "Domains", needs: "domains:read" },
  { href: "/files", label: "Files", needs: "buckets:read" },
  { href: "/templates", label: "Templates", needs: "templates:read" },
  { href: "/contacts", label: "Contacts", needs: "contacts:read" },
  { href: "/audiences", label: "Audiences", needs: "audiences:read" },
  { href: "/broadcasts", label: "Broadcasts", needs: "audiences:read" },
  { href: "/agents", label: "Agents", needs: "agents:read" },
  { href: "/phone", label: "Phone", needs: "phone:read" },
  { href: "/letters", label: "Letters", needs: "letters:read" },
  { href: "/budgets", label: "Budgets", needs: "budgets:read" },
  { href: "/compliance", label: "Compliance", needs: "compliance:read" },
  { href: "/api-keys", label: "API keys", needs: "keys:read" },
  { href: "/webhooks", label: "Webhooks", needs: "webhooks:read" },
  { href: "/events", label: "Events", needs: "events:read" },
  { href: "/logs", label: "Request log", needs: "account:read" },
  { href: "/audit-log", label: "Audit log", needs: "account:read" },
  { href: "/workflows", label: "Workflow runs", needs: "events:read" },
  { href: "/members", label: "Members", needs: "account:read" },
  { href: "/settings", label: "Settings", needs: "account:read" },
  { href: "/docs/api", label: "API reference", needs: null },
];

/** The signed-in console's frame: sidebar (organization switcher, pages the role may open, account) and the page. */
export function ConsoleShell({ ctx, children }: { ctx: ConsoleContext; children: ReactNode }) {
  return (
    <Providers>
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-sm"
      >
        Skip to content
      </a>
      <div className="flex min-h-screen flex-col md:flex-row">
        <Sidebar brand={<p className="text-lg font-semibold tracking-tight">svc console</p>}>
          <OrgSwitcher
            current={ctx.org.id}
            organizations={ctx.organizations.map((o) => ({ id: o.id, name: o.name, role: o.role }))}
          />
          <Nav
            items={NAV.filter((item) => item.needs === null || ctx.can(item.needs)).map(({ href, label }) => ({
              href,
              label,
            }))}
          />
          <div className="border-t border-zinc-200 pt-4 text-sm dark:border-zinc-800">
            <p className="truncate font-medium" title={ctx.user.email}>
              {ctx.user.name ?? ctx.user.email}
            </p>
            <p className="text-xs text-zinc-600 dark:text-zinc-400">Role: {ctx.role}</p>
            <form action={signOutAction} className="mt-2">
              <button type="submit" className="link text-xs">
                Sign out
              </button>
            </form>
          </div>
        </Sidebar>
        <main id="main" className="min-w-0 flex-1 p-4 sm:p-6 md:p-8">
          <OrgProvider orgId={ctx.org.id}>{children}</OrgProvider>
        </main>
      </div>
    </Providers>
  );
}
