import { errorText } from '../api/http';

/** API and other errors as a readable message, never a blank page. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  return <p className="error" role="alert">{errorText(error)}</p>;
}
