import { DeleteOrganizationForm } from "@/components/console/delete-organization";
import { Card, Details, Mono, PageHeader } from "@/components/console/ui";
import { PasswordForm } from "@/components/console/password-form";
import { RenameOrganizationForm } from "@/components/console/rename-organization";
import { CopyButton } from "@/components/console/copy-button";
import { pageBaseUrl } from "@/lib/console/base-url";
import { hasPassword } from "@/lib/console/reads";
import { getConsole } from "@/lib/console/context";

export const metadata = { title: "Settings — svc console" };

export default async function SettingsPage() {
  const ctx = await getConsole();
  const baseUrl = await pageBaseUrl();
  return (
    <>
      <PageHeader title="Settings" description="The current organization." />
      <div className="space-y-6">
        <Card title="Organization">
          <Details
            items={[
              ["Name", ctx.org.name],
              ["Slug", <Mono key="s">{ctx.org.slug}</Mono>],
              ["Id", <Mono key="i">{ctx.org.id}</Mono>],
              ["Your role", ctx.role],
              [
                "API base URL",
                <span key="b" className="flex flex-wrap items-center gap-2">
                  <Mono>{baseUrl}</Mono>
                  <CopyButton value={baseUrl} label="Copy URL" />
                </span>,
              ],
            ]}
          />
          {ctx.can("members:manage") ? (
            <div className="mt-4 border-t border-zinc-200 pt-4 dark:border-zinc-800">
              <RenameOrganizationForm name={ctx.org.name} />
            </div>
          ) : null}
        </Card>
        <Card title="Your password">
          <PasswordForm hasPassword={await hasPassword(ctx)} />
        </Card>
        {ctx.can("organization:delete") ? (
          <Card title="Delete organization" className="border-red-300 dark:border-red-900">
            <p className="mb-4 text-sm">
              This deletes every inbox, message, domain, API key, webhook and event of {ctx.org.name}. It cannot be
              undone.
            </p>
            <DeleteOrganizationForm name={ctx.org.name} />
          </Card>
        ) : null}
      </div>
    </>
  );
}
