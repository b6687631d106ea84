// A plot's page: its metadata and (unless the link asks for a later frame) first frame start downloading
// now, while the app's code loads; the viewer's own requests for the same URLs are then answered by these preloads.
// A file rather than an inline script: the Content-Security-Policy allows scripts from this origin only.
(function () {
  var m = /^\/plots\/([^/]+)\/?$/.exec(location.pathname);
  if (!m) return;
  var plot = '/api/v1/plots/' + encodeURIComponent(decodeURIComponent(m[1]));
  var hrefs = [plot];
  // Frame 0 is there in every plot; a later frame the link asks for waits for the plot's frame count (the viewer's).
  var f = new URLSearchParams(location.search).get('f');
  if (!/^\d+$/.test(f) || Number(f) === 0) hrefs.push(plot + '/frames/0/positions', plot + '/frames/0/clusters');
  hrefs.forEach(function (href) {
    var link = document.createElement('link');
    link.rel = 'preload';
    link.as = 'fetch';
    link.crossOrigin = 'anonymous';
    link.href = href;
    document.head.appendChild(link);
  });
})();
