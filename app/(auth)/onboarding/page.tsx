import Link from "next/link";
import { redirect } from "next/navigation";
import { CreateOrganizationForm } from "@/components/console/create-organization-form";
import { requireUser } from "@/lib/console/context";
import { listOrganizations } from "@/lib/organizations/operations";

export const metadata = { title: "Create an organization — svc console" };

/** A user without an organization (the first user of a fresh install) creates one and becomes its owner. */
export default async function OnboardingPage({ searchParams }: { searchParams: Promise<{ new?: string }> }) {
  const { user, invoke } = await requireUser();
  const { organizations: orgs } = await invoke(listOrganizations);
  const { new: adding } = await searchParams;
  if (orgs.length > 0 && !adding) redirect("/");
  return (
    <>
      <div>
        <h1 className="text-xl font-semibold">{orgs.length ? "New organization" : "Create your organization"}</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
          Organizations own inboxes, domains, keys and webhooks. You will be its owner and can invite others.
        </p>
      </div>
      <CreateOrganizationForm />
      {orgs.length ? (
        <Link className="link text-sm" href="/">
          Back to the console
        </Link>
      ) : (
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          Signed in as {user.email}. Invited to an existing organization? Open the link in your invitation email.
        </p>
      )}
    </>
  );
}
