/**
 * Runs once before the suite. On PostgreSQL it applies the migrations a single time so that
 * test workers starting together do not all migrate (they would wait on the advisory lock anyway).
 */
export default async function setup(): Promise<void> {
  if (!process.env.DATABASE_URL) return;
  const { getDbHandle, closeDb } = await import("@/db");
  await getDbHandle();
  await closeDb();
}
