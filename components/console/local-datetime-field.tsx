"use client";

import { useEffect, useRef } from "react";
import { Field } from "./form";

/** `2026-11-27T17:40` in the browser's time zone (what a datetime-local input holds) for an instant. */
function localInputValue(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/**
 * A date and time in the viewer's time zone for a filter whose URL value is an instant (ISO 8601,
 * UTC): the browser fills the input from the URL after hydration, and `FilterForm` writes the
 * chosen local time back as UTC. Without script the form sends the local value as typed.
 */
export function LocalDateTimeField({ label, name, iso }: { label: string; name: string; iso?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const input = ref.current?.querySelector("input");
    if (input) input.value = iso ? localInputValue(iso) : "";
  }, [iso]);
  return (
    <div ref={ref}>
      <Field label={label} name={name} type="datetime-local" step={60} />
    </div>
  );
}
