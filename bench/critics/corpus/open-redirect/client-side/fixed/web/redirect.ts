const params = new URLSearchParams(window.location.search);
const next = params.get('next');

if (next && next.startsWith('/') && !next.startsWith('//')) {
  window.location.href = next;
}
