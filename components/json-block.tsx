/** A pretty-printed JSON value in a scrollable code block. */
export function JsonBlock({ value }: { value: unknown }) {
  return (
    <pre className="mt-2 overflow-x-auto rounded bg-zinc-100 p-3 text-xs leading-relaxed dark:bg-zinc-900">{JSON.stringify(value, null, 2)}</pre>
  );
}
