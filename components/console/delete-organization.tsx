"use client";

import { useRouter } from "next/navigation";
import { deleteOrganizationAction } from "@/lib/console/actions/settings";
import { Button, Field, FormError, useActionForm } from "./form";
import { inputRules } from "@/components/console/contract-input";
import { deleteOrganization } from "@/lib/organizations/contracts";

export function DeleteOrganizationForm({ name }: { name: string }) {
  const router = useRouter();
  const action = useActionForm(deleteOrganizationAction, { onSuccess: () => router.push("/") });
  return (
    <form {...action.formProps} aria-label="Delete organization" className="space-y-3">
      <Field
        label={`Type ${name} to confirm`}
        name="confirm"
        {...inputRules(deleteOrganization.body, "confirm")}
        required
        autoComplete="off"
        error={action.fieldError("confirm")}
      />
      <FormError failure={action.failure && !action.failure.fields.confirm ? action.failure : null} />
      <Button variant="danger" pending={action.isPending}>
        Delete organization
      </Button>
    </form>
  );
}
