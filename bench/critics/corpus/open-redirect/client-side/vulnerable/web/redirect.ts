const params = new URLSearchParams(window.location.search);
const next = params.get('next');

if (next) {
  window.location.href = next; // VULN: open-redirect
}
