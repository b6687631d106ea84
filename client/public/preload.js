// A plot's page: its metadata and first frame start downloading now, while the app's code
// loads; the viewer's own requests for the same URLs are then answered by these preloads.
// A file rather than an inline script: the Content-Security-Policy allows scripts from this origin only.
(function () {
  var m = /^\/plots\/([^/]+)\/?$/.exec(location.pathname);
  if (!m) return;
  var f = new URLSearchParams(location.search).get('f');
  var plot = '/api/v1/plots/' + encodeURIComponent(decodeURIComponent(m[1]));
  var frame = plot + '/frames/' + (/^\d+$/.test(f) ? Number(f) : 0) + '/';
  [plot, frame + 'positions', frame + 'clusters'].forEach(function (href) {
    var link = document.createElement('link');
    link.rel = 'preload';
    link.as = 'fetch';
    link.crossOrigin = 'anonymous';
    link.href = href;
    document.head.appendChild(link);
  });
})();
