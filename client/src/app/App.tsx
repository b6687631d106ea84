import { LibraryPage } from '../library/LibraryPage';
import { LoginPage } from '../pages/LoginPage';
import { TokensPage } from '../pages/TokensPage';
import { JobPage } from '../jobs/JobPage';
import { JobsListPage } from '../jobs/JobsListPage';
import { ViewerPage } from '../viewer/ViewerPage';
import { linkClick, matchRoute, navigate, useLocation } from './router';
import { SessionProvider, useSession } from './session';

function NavBar() {
  const { username, outage, logout } = useSession();
  const location = useLocation();
  if (new URLSearchParams(location.search).get('embed') === '1') return null; // a framed viewer: canvas only
  return (
    <>
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
      {outage && <p className="outage" role="status" data-testid="server-outage">{outage}</p>}
    </>
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
      <Page />
    </SessionProvider>
  );
}
