"use client";

import { useRouter } from "next/navigation";
import { createOrganizationAction } from "@/app/(console)/actions";
import { Button, Field, FormError, formValues, useAction } from "./form";

export function CreateOrganizationForm() {
  const router = useRouter();
  const action = useAction(createOrganizationAction, { onSuccess: () => router.push("/") });
  return (
    <form
      noValidate
      aria-label="Create organization"
      className="space-y-4"
      onSubmit={(e) => {
        e.preventDefault();
        action.mutate(formValues(e.currentTarget));
      }}
    >
      <Field label="Organization name" name="name" required maxLength={80} error={action.fieldError("name")} />
      <FormError failure={action.failure && !action.failure.fields.name ? action.failure : null} />
      <Button pending={action.isPending} className="w-full">
        Create organization
      </Button>
    </form>
  );
}
