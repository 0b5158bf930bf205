"use client";

import { magicLinkSignIn, passwordSignIn, signUp } from "@/lib/console/actions/sign-in";
import { Button, Field, FormError, useActionForm } from "./form";
import { inputRules } from "@/components/console/contract-input";
import { magicLinkBody, signInBody, signUpBody } from "@/lib/account/contracts";

export function PasswordSignInForm({ next }: { next: string }) {
  const action = useActionForm(passwordSignIn, { refresh: false, extra: () => ({ next }) });
  return (
    <form {...action.formProps} aria-label="Sign in with password" className="space-y-4">
      <Field
        label="Email"
        name="email"
        {...inputRules(signInBody, "email")}
        autoComplete="email"
        error={action.fieldError("email")}
      />
      <Field
        label="Password"
        name="password"
        {...inputRules(signInBody, "password")}
        type="password"
        autoComplete="current-password"
        error={action.fieldError("password")}
      />
      <FormError failure={action.failure && !action.failure.param ? action.failure : null} />
      <Button pending={action.isPending} className="w-full">
        Sign in
      </Button>
    </form>
  );
}

export function MagicLinkForm({ next }: { next: string }) {
  const action = useActionForm(magicLinkSignIn, { refresh: false, extra: () => ({ next }) });
  return (
    <form {...action.formProps} aria-label="Sign in with an email link" className="space-y-4">
      <Field
        label="Email"
        name="email"
        {...inputRules(magicLinkBody, "email")}
        autoComplete="email"
        error={action.fieldError("email")}
        hint="We email you a one-time sign-in link."
      />
      <FormError failure={action.failure && !action.failure.param ? action.failure : null} />
      <Button variant="secondary" pending={action.isPending} className="w-full">
        Email me a sign-in link
      </Button>
    </form>
  );
}

export function SignUpForm({ next, email }: { next: string; email?: string }) {
  const action = useActionForm(signUp, { refresh: false, extra: () => ({ next }) });
  return (
    <form {...action.formProps} aria-label="Create account" className="space-y-4">
      <Field
        label="Name"
        name="name"
        {...inputRules(signUpBody, "name")}
        autoComplete="name"
        error={action.fieldError("name")}
      />
      <Field
        label="Email"
        name="email"
        {...inputRules(signUpBody, "email")}
        autoComplete="email"
        defaultValue={email}
        error={action.fieldError("email")}
      />
      <Field
        label="Password"
        name="password"
        {...inputRules(signUpBody, "password")}
        type="password"
        autoComplete="new-password"
        hint="At least 10 characters."
        error={action.fieldError("password")}
      />
      <FormError failure={action.failure && !action.failure.param ? action.failure : null} />
      <Button pending={action.isPending} className="w-full">
        Create account
      </Button>
    </form>
  );
}
