import { NotFoundNotice } from "@/components/console/not-found-notice";

export const metadata = { title: "Not found — svc console" };

/** Any URL the app does not have. */
export default function NotFound() {
  return (
    <main className="px-4">
      <NotFoundNotice />
    </main>
  );
}
