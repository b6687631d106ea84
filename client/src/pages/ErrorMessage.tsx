import { ApiError } from '../api/http';

/** API and other errors as a readable message, never a blank page. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  let text = error instanceof Error ? error.message : String(error);
  if (error instanceof ApiError) {
    if (error.field) text += ` (field ${error.field})`;
    if (error.line !== undefined) text += ` (line ${error.line})`;
  }
  return <p className="error" role="alert">{text}</p>;
}
