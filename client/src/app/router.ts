// A minimal history-API router: the route table is a contract (links are shared).
import { useEffect, useState } from 'react';

export type Route =
  | { name: 'library' }
  | { name: 'viewer'; id: string }
  | { name: 'jobs' }
  | { name: 'job'; id: string }
  | { name: 'login' }
  | { name: 'tokens' }
  | { name: 'notFound' };

export function matchRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/') return { name: 'library' };
  if (path === '/login') return { name: 'login' };
  if (path === '/tokens') return { name: 'tokens' };
  if (path === '/jobs') return { name: 'jobs' };
  let m = /^\/plots\/([^/]+)$/.exec(path);
  if (m) return { name: 'viewer', id: decodeURIComponent(m[1]) };
  m = /^\/jobs\/([^/]+)$/.exec(path);
  if (m) return { name: 'job', id: decodeURIComponent(m[1]) };
  return { name: 'notFound' };
}

const NAVIGATE_EVENT = 'wpv:navigate';

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
}

/** The current location; re-renders on pushState through navigate() and on back/forward. */
export function useLocation(): Location {
  const [, setTick] = useState(0);
  useEffect(() => {
    const bump = () => setTick((t) => t + 1);
    window.addEventListener('popstate', bump);
    window.addEventListener(NAVIGATE_EVENT, bump);
    return () => {
      window.removeEventListener('popstate', bump);
      window.removeEventListener(NAVIGATE_EVENT, bump);
    };
  }, []);
  return window.location;
}

/** Click handler for in-app links: plain left clicks navigate without a reload. */
export function linkClick(e: React.MouseEvent<HTMLAnchorElement>): void {
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(e.currentTarget.getAttribute('href') ?? '/');
}
