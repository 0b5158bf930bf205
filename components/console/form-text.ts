/** A form's text fields by name, trimmed; "" for a missing or file field. */
export function formText(data: FormData): (name: string) => string {
  return (name) => {
    const v = data.get(name);
    return typeof v === "string" ? v.trim() : "";
  };
}
