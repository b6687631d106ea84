import { lazy, Suspense, type ComponentType } from 'react';
import { linkClick, matchRoute, navigate, useLocation } from './router';
import { SessionProvider, useSession } from './session';

/** A page loaded with its own code chunk: the library does not load three.js, nor the viewer the jobs pages. */
function page<P extends object>(load: () => Promise<ComponentType<P>>) {
  return lazy(async () => ({ default: await load() }));
}

const LibraryPage = page(async () => (await import('../library/LibraryPage')).LibraryPage);
const LoginPage = page(async () => (await import('../pages/LoginPage')).LoginPage);
const TokensPage = page(async () => (await import('../pages/TokensPage')).TokensPage);
const JobPage = page(async () => (await import('../jobs/JobPage')).JobPage);
const JobsListPage = page(async () => (await import('../jobs/JobsListPage')).JobsListPage);
const ViewerPage = page(async () => (await import('../viewer/ViewerPage')).ViewerPage);

function NavBar() {
  const { username, logout } = useSession();
  return (
    <header className="nav">
      <a href="/" onClick={linkClick} className="brand">WebPlotViz</a>
      <a href="/" onClick={linkClick}>Library</a>
      <a href="/jobs" onClick={linkClick}>Jobs</a>
      {username && <a href="/tokens" onClick={linkClick}>API tokens</a>}
      <span className="spacer" />
      {username === null && <a href="/login" onClick={linkClick}>Log in</a>}
      {username && (
        <>
          <span className="user" data-testid="username">{username}</span>
          <button onClick={() => logout().then(() => navigate('/'))}>Log out</button>
        </>
      )}
    </header>
  );
}

function Page() {
  const location = useLocation();
  const route = matchRoute(location.pathname);
  switch (route.name) {
    case 'library': return <LibraryPage />;
    case 'viewer': return <ViewerPage key={route.id} plotId={route.id} />;
    case 'login': return <LoginPage />;
    case 'tokens': return <TokensPage />;
    case 'jobs': return <JobsListPage />;
    case 'job': return <JobPage key={route.id} jobId={route.id} />;
    case 'notFound': return <main className="page"><h1>Page not found</h1><a href="/" onClick={linkClick}>Back to the library</a></main>;
  }
}

export function App() {
  return (
    <SessionProvider>
      <NavBar />
      <Suspense fallback={null}>
        <Page />
      </Suspense>
    </SessionProvider>
  );
}
