"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { switchOrganization } from "@/lib/console/actions/organizations";
import { useAction } from "./form";

/** Lists the user's organizations; choosing one switches the whole console to it. */
export function OrgSwitcher({
  current,
  organizations,
}: {
  current: string;
  organizations: { id: string; name: string; role: string }[];
}) {
  const router = useRouter();
  const action = useAction(switchOrganization, { onSuccess: () => router.push("/") });
  return (
    <div className="space-y-1">
      <label
        htmlFor="org-switcher"
        className="block text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400"
      >
        Organization
      </label>
      <select
        id="org-switcher"
        value={current}
        disabled={action.isPending}
        onChange={(e) => action.mutate(e.target.value)}
        className="block w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900"
      >
        {organizations.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name} ({o.role})
          </option>
        ))}
      </select>
      <Link href="/onboarding?new=1" className="link text-xs">
        + New organization
      </Link>
    </div>
  );
}
