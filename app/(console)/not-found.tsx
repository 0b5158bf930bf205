import { NotFoundNotice } from "@/components/console/not-found-notice";

export const metadata = { title: "Not found — svc console" };

/** An unknown or foreign id inside the console (`notFound()` from `readOne`): inside the console's layout. */
export default function ConsoleNotFound() {
  return <NotFoundNotice />;
}
