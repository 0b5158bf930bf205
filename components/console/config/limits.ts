/** How many delivery attempts the webhook page's live log shows (newest first). */
export const DELIVERY_LOG_SIZE = 50;

/** How often the webhook page re-reads its state and delivery log, in milliseconds. */
export const WEBHOOK_POLL_MS = 2_000;

/** The largest export file the compliance page sends to the server to verify (server actions take up to 1 MB); larger ones: `npm run svc -- compliance verify`. */
export const VERIFY_FILE_MAX_BYTES = 900_000;
export const VERIFY_FILE_TOO_LARGE = `The file is over ${VERIFY_FILE_MAX_BYTES / 1000} kB: verify it with npm run svc -- compliance verify <file>.`;

/** How many export pages (5,000 rows each) the compliance page's export and verify read at most. */
export const EXPORT_PAGES_MAX = 20;
