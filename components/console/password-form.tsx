"use client";

import { useState } from "react";
import { setPasswordAction } from "@/lib/console/actions/settings";
import { Button, Field, FormError, useActionForm } from "./form";
import { inputRules } from "@/components/console/contract-input";
import { passwordChangeBody } from "@/lib/account/contracts";

/** Set a first password (email-link accounts) or change the current one. */
export function PasswordForm({ hasPassword }: { hasPassword: boolean }) {
  const [saved, setSaved] = useState(false);
  const action = useActionForm(setPasswordAction, { reset: true, onSuccess: () => setSaved(true) });
  return (
    <form
      {...action.formProps}
      aria-label="Password"
      className="max-w-md space-y-3"
      onSubmit={(e) => {
        setSaved(false);
        action.formProps.onSubmit(e);
      }}
    >
      {hasPassword ? null : (
        <p className="text-sm">
          No password is set: you sign in with email links. Set one to sign in with your email and a password too.
        </p>
      )}
      {hasPassword ? (
        <Field
          label="Current password"
          name="currentPassword"
          {...inputRules(passwordChangeBody, "currentPassword")}
          required
          type="password"
          autoComplete="current-password"
          error={action.fieldError("currentPassword")}
        />
      ) : null}
      <Field
        label="New password"
        name="newPassword"
        {...inputRules(passwordChangeBody, "newPassword")}
        type="password"
        autoComplete="new-password"
        hint="At least 10 characters."
        error={action.fieldError("newPassword")}
      />
      <FormError failure={action.failure && !action.failure.param ? action.failure : null} />
      <div className="flex items-center gap-3">
        <Button pending={action.isPending}>Save password</Button>
        <span aria-live="polite" className="text-sm text-emerald-800 dark:text-emerald-300">
          {saved ? "Password saved." : ""}
        </span>
      </div>
    </form>
  );
}
