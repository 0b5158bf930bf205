import Link from "next/link";
import { redirect } from "next/navigation";
import { MagicLinkForm, PasswordSignInForm } from "@/components/console/auth-forms";
import { ErrorNotice } from "@/components/console/ui";
import { auth } from "@/lib/console/auth";
import { safeNext } from "@/lib/console/redirects";

export const metadata = { title: "Sign in — svc console" };

const AUTH_ERRORS: Record<string, string> = {
  Verification: "That sign-in link has expired or was already used. Request a new one.",
  AccessDenied: "This address cannot sign in here. Ask an admin for an invitation.",
  CredentialsSignin: "Wrong email or password.",
  RateLimited: "Too many sign-in emails were requested for this address. Try again in a few minutes.",
};

/** Auth.js adds `code=` to CredentialsSignin errors: `rate_limited` when authorize throttled the attempt. */
function errorMessage(error: string, code: string | undefined): string {
  if (error === "CredentialsSignin" && code === "rate_limited")
    return "Too many sign-in attempts. Try again in a few minutes.";
  return AUTH_ERRORS[error] ?? "Sign-in failed. Try again.";
}

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; error?: string; code?: string }>;
}) {
  const { next: rawNext, error, code } = await searchParams;
  const next = safeNext(rawNext);
  if ((await auth())?.user?.id) redirect(next);
  return (
    <>
      <div>
        <h1 className="text-xl font-semibold">Sign in</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">to the messaging console</p>
      </div>
      {typeof error === "string" ? (
        <ErrorNotice>{errorMessage(error, typeof code === "string" ? code : undefined)}</ErrorNotice>
      ) : null}
      <PasswordSignInForm next={next} />
      <div className="flex items-center gap-3 text-xs text-zinc-500" aria-hidden>
        <span className="h-px flex-1 bg-zinc-200 dark:bg-zinc-700" /> or{" "}
        <span className="h-px flex-1 bg-zinc-200 dark:bg-zinc-700" />
      </div>
      <MagicLinkForm next={next} />
      <p className="text-center text-sm">
        New here?{" "}
        <Link className="link" href={`/sign-up${next !== "/" ? `?next=${encodeURIComponent(next)}` : ""}`}>
          Create an account
        </Link>
      </p>
    </>
  );
}
