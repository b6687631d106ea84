import { linkClick } from '../app/router';

/** What an anonymous visitor sees where an account is needed: a link to the login page and why. */
export function LoginPrompt({ to }: { to: string }) {
  return <p data-testid="login-prompt"><a href="/login" onClick={linkClick}>Log in</a> {to}</p>;
}
