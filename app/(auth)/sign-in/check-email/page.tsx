import Link from "next/link";
import { isDevelopment } from "@/lib/console/mode";

export const metadata = { title: "Check your email — svc console" };

export default function CheckEmailPage() {
  return (
    <>
      <h1 className="text-xl font-semibold">Check your email</h1>
      <p className="text-sm">We sent you a sign-in link. It works once and expires in 15 minutes.</p>
      {isDevelopment() ? (
        <p className="rounded border border-sky-300 bg-sky-50 px-3 py-2 text-sm dark:border-sky-900 dark:bg-sky-950">
          Development: with the embedded mail transport the email is a file in the local outbox (<code>OUTBOX_DIR</code>
          , default <code>.data/outbox</code>), and the link is in the server log.
        </p>
      ) : null}
      <Link className="link text-sm" href="/sign-in">
        Back to sign in
      </Link>
    </>
  );
}
