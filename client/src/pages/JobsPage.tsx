// The job gateway (issue 4) owns this page's content; until it lands the route says so.
export function JobsPage() {
  return (
    <main className="page">
      <h1>Jobs</h1>
      <p>The analytics job gateway is not part of this client build yet.</p>
    </main>
  );
}
