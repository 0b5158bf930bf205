"use client";

import { useState } from "react";
import { renameOrganizationAction } from "@/lib/console/actions/settings";
import { inputRules } from "@/components/console/contract-input";
import { organizationRenameBody } from "@/lib/organizations/contracts";
import { Button, Field, FormError, useActionForm } from "./form";

/** Renames the current organization (owners and admins); the sidebar and this page show the new name. */
export function RenameOrganizationForm({ name }: { name: string }) {
  const [saved, setSaved] = useState(false);
  const action = useActionForm(renameOrganizationAction, { onSuccess: () => setSaved(true) });
  return (
    <form
      {...action.formProps}
      aria-label="Rename organization"
      className="max-w-md space-y-3"
      onSubmit={(e) => {
        setSaved(false);
        action.formProps.onSubmit(e);
      }}
    >
      <Field
        label="Organization name"
        name="name"
        {...inputRules(organizationRenameBody, "name")}
        required
        defaultValue={name}
        hint="Its id and slug stay the same; the audit log records the change."
        error={action.fieldError("name")}
      />
      <FormError failure={action.failure && !action.fieldError("name") ? action.failure : null} />
      <div className="flex items-center gap-3">
        <Button pending={action.isPending}>Rename</Button>
        <span aria-live="polite" className="text-sm text-emerald-800 dark:text-emerald-300">
          {saved ? "Organization renamed." : ""}
        </span>
      </div>
    </form>
  );
}
