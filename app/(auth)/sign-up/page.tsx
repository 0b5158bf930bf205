import Link from "next/link";
import { redirect } from "next/navigation";
import { SignUpForm } from "@/components/console/auth-forms";
import { auth } from "@/lib/console/auth";
import { safeNext } from "@/lib/console/redirects";

export const metadata = { title: "Create account — svc console" };

export default async function SignUpPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; email?: string }>;
}) {
  const { next: rawNext, email } = await searchParams;
  const next = safeNext(rawNext);
  if ((await auth())?.user?.id) redirect(next);
  return (
    <>
      <div>
        <h1 className="text-xl font-semibold">Create your account</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
          The first account of a new installation creates its first organization.
        </p>
      </div>
      <SignUpForm next={next} email={typeof email === "string" ? email : undefined} />
      <p className="text-center text-sm">
        Have an account?{" "}
        <Link className="link" href={`/sign-in${next !== "/" ? `?next=${encodeURIComponent(next)}` : ""}`}>
          Sign in
        </Link>
      </p>
    </>
  );
}
