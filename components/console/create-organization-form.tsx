"use client";

import { useRouter } from "next/navigation";
import { createOrganizationAction } from "@/lib/console/actions/organizations";
import { Button, Field, FormError, useActionForm } from "./form";
import { inputRules } from "@/components/console/contract-input";
import { organizationCreateBody } from "@/lib/organizations/contracts";

export function CreateOrganizationForm() {
  const router = useRouter();
  const action = useActionForm(createOrganizationAction, { onSuccess: () => router.push("/") });
  return (
    <form {...action.formProps} aria-label="Create organization" className="space-y-4">
      <Field
        label="Organization name"
        name="name"
        {...inputRules(organizationCreateBody, "name")}
        error={action.fieldError("name")}
      />
      <FormError failure={action.failure && !action.failure.fields.name ? action.failure : null} />
      <Button pending={action.isPending} className="w-full">
        Create organization
      </Button>
    </form>
  );
}
